"""Share as one file: the whole trace as self-contained HTML, and a printable handout."""

import json
import re
from dataclasses import replace
from html.parser import HTMLParser

from lib import catalog
from lib.annotations import Note
from lib.export_html import handout_html, trace_html
from lib.logs.upload import read_upload
from lib.model import ProviderError
from lib.summary import summarize
from lib.encodings import load_encoding
from lib.text import show_controls
from lib.tokens import CHARACTER_COUNTER, tiktoken_counter
from tests.conftest import load_bundled
from tests.hostile import COMMAND, HOSTILE, IMG, META, SCRIPT, SHOWN, hostile_trace
from tests.screen import FIXTURES

OUR_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "span", "b", "code", "pre", "div",
            "table", "tr", "th", "td", "section", "details", "summary", "ol", "li"}
"""Every tag the templates write; a trace can add none."""
OUR_METAS = [("charset", "utf-8"), ("http-equiv", "Content-Security-Policy"), ("name", "referrer"), ("name", "viewport")]
"""The file's own meta tags: a charset, the policy, no referrer, the viewport. No refresh."""


class _Tags(HTMLParser):
    """Every tag and attribute of a page, as a browser's parser would see them."""

    def __init__(self):
        super().__init__()
        self.tags, self.attributes, self.text, self.metas = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag == "meta":
            self.metas.append(attrs[0][:2])

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Tags:
    found = _Tags()
    found.feed(page)
    return found


def _note(target, text):
    return Note(id=target, trace="fp", target=target, labels=("question for class",), text=text, author="Ana",
                created="2026-11-29T10:00:00Z")


def test_the_hengxin_file_shows_every_round_its_steps_tokens_and_notes(hengxin):
    page = trace_html(hengxin, summarize(hengxin, CHARACTER_COUNTER),
                      [_note("round:2/request.messages[3]", "Why two results?"), _note("trace", "Read this first.")])
    assert re.findall(r'<section class="round" id="round-(\d)">', page) == ["1", "2", "3", "4"]
    for heading in ("Round 1: the program sends 2 messages, 2 of them new",
                    "Round 4: the program sends 9 messages, 2 of them new"):
        assert heading in page
    assert "② Step 2 · Call intent</span> queryExpense (call_q1)" in page
    assert "④ Step 4 · Result appended</span> result for createExpenseSupplement (call_q4, called in round 3)" in page
    assert "Tokens: 1,247 in, 58 out, as the API reported them." in page
    assert "estimated offline (characters); the API reported none." in page
    assert "Why two results?" in page and "Read this first." in page
    assert page.index("Why two results?") > page.index('id="round-2"')
    assert page.index("Why two results?") < page.index('id="round-3"')


def test_the_file_loads_nothing_and_runs_nothing(hengxin):
    found = _parse(trace_html(hengxin))
    assert "script" not in found.tags and "img" not in found.tags and "link" not in found.tags
    assert not [name for name, _ in found.attributes if name in ("src", "href", "action") or name.startswith("on")]
    assert found.tags.count("style") == 1


def test_hostile_trace_text_comes_out_as_text():
    trace = catalog.load_bytes(hostile_trace(written=True), "hostile.jsonl").trace
    notes = [_note("round:1", HOSTILE)]
    for page in (trace_html(trace, None, notes), handout_html(trace)):
        found = _parse(page)
        assert "script" not in found.tags and "img" not in found.tags and "a" not in found.tags
        assert not [name for name, _ in found.attributes if name in ("src", "href") or name.startswith("on")]
        assert SCRIPT not in page and "&lt;script&gt;" in page
        assert any(SHOWN in text for text in found.text)  # the parser gives the escaped text back whole


def test_the_content_security_policy_forbids_scripts_and_remote_loads(hengxin):
    page = trace_html(hengxin)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in policy and "script-src" not in policy


def test_the_handout_has_a_page_per_round_and_the_answers_last(hengxin):
    page = handout_html(hengxin)
    assert page.count('<section class="page">') == 5
    assert "@media print" in page and "break-after: page" in page
    assert page.count("How many messages will the next request carry?") == 4  # the last round's page asks it too
    answers = page[page.index("<h2>Answers</h2>"):]
    assert "Request 2 carried 5 messages." in answers and "The trace has no next request" in answers
    assert "call_q4" in answers and page.index("call_q4") < page.index("<h2>Answers</h2>")


def test_the_handout_says_a_rounds_answer_is_on_the_next_page_not_only_at_the_end(hengxin):
    # Round 2's page shows request 2: round 1's calls, their results, and its size in the heading. It told the learner
    # the answers were at the end.
    page = handout_html(hengxin)
    assert "Round 2: the program sends 5 messages" in page and "call_q1" in page[:page.index("<h2>Answers</h2>")]
    assert "before you turn the page: each request carries what the model did in the round before it." in page
    assert "before you turn to the answers at the end" not in page


def test_a_handout_of_one_round(hengxin):
    page = handout_html(hengxin, [3])
    assert page.count('<section class="page">') == 2 and "Round 3: the program sends 7 messages" in page


def test_every_string_field_of_a_hostile_trace_stays_text_in_the_file_and_the_handout():
    trace = catalog.load_bytes(hostile_trace(written=True), "hostile.jsonl").trace
    notes = [Note(id="n", trace="fp", target=target, labels=(HOSTILE,), text=HOSTILE, author=HOSTILE, created=HOSTILE)
             for target in ("trace", "round:1", HOSTILE)]
    for page in (trace_html(trace, summarize(trace, CHARACTER_COUNTER), notes), handout_html(trace)):
        found = _parse(page)
        assert set(found.tags) <= OUR_TAGS
        assert found.metas == OUR_METAS
        assert {name for name, _ in found.attributes} <= {"lang", "charset", "http-equiv", "content", "name", "class",
                                                          "id", "style"}
        assert {value for name, value in found.attributes if name == "style"} <= {"padding: 0 6px"}
        assert META not in page and "&lt;meta http-equiv=refresh" in page
        assert "\u202e" not in page and "[U+202E]gnp.exe" in page  # no control reverses the text after it
    whole = "".join(_parse(trace_html(trace, None, notes)).text)
    assert whole.count(SHOWN) >= 20  # title, model, description, messages, tools, ids, status, approval, notes...
    assert f"anthropic-beta: {SHOWN}" in whole  # a request header the log kept, as text
    # Round 3's command, written in its text: the program lane names it, gives its arguments and what it returned.
    named = show_controls(COMMAND)
    assert f"command {named} · written in the model's text, not as a tool call: no call id" in whole
    assert f"Command {named} returned: {SHOWN}" in whole
    assert f'"q": "{SHOWN.replace(chr(34), chr(92) + chr(34))}"' in whole
    # Round 1's failed tries: when each was sent and what the provider sent (JSON, text, or the log's message).
    text = _parse(trace_html(trace, None, notes)).text
    first = text.index("Try 1 of 4 failed: HTTP 429.")
    assert text[first + 1] == f"Sent at {SHOWN}"
    assert json.loads(text[first + 2].replace("[U+202E]", "\u202e")) == {"error": {"message": HOSTILE,
                                                                                     "type": HOSTILE}}
    assert text[text.index("Try 2 of 4 failed: HTTP 503.") + 1:][:2] == [f"Sent at {SHOWN}", SHOWN]
    assert text[text.index("Try 3 of 4 failed: HTTP 502.") + 1] == SHOWN


def test_a_status_approval_or_duration_of_the_wrong_type_shows_as_text_and_breaks_nothing(hengxin):
    """A model object may carry a log's string where a number or a fixed word belongs (the reader's job to
    coerce, the file's job to stay safe): a status like a meta refresh must not become a tag."""
    first, last = hengxin.rounds[0], hengxin.rounds[-1]
    failed = replace(last, response=None, error=ProviderError(status=META, message="refused", body={}))
    odd = replace(first, executions=tuple(replace(e, approval=IMG, duration_ms=f"12 {IMG}") for e in first.executions))
    trace = replace(hengxin, rounds=(odd, *hengxin.rounds[1:-1], failed))
    for page in (trace_html(trace), handout_html(trace)):
        found = _parse(page)
        assert found.metas == OUR_METAS and "img" not in found.tags
        assert f"The call failed: HTTP {META}. The provider said:" in "".join(found.text)
    assert f"12 {IMG} ms · {IMG}" in "".join(_parse(trace_html(trace)).text)


def test_the_file_sends_no_referrer(hengxin):
    assert '<meta name="referrer" content="no-referrer">' in trace_html(hengxin)


def test_the_file_gives_each_rounds_input_with_parts_summing_to_it_and_why_it_differs(hengxin):
    page = "".join(_parse(trace_html(hengxin, summarize(hengxin, tiktoken_counter(load_encoding("o200k_base"))))).text)
    # Round 2 reported no usage: its part beyond our count is round 1's, carried over, named as the explorer names it.
    assert ("Where the input goes (≈ 1,378 in all): instructions 48 · tool definitions 653 · earlier messages (resent) "
            "34 · new messages 122 · message framing 18 · beyond our count as round 1 reported it (template, provider "
            "tokens) 503.") in page
    assert page.count("reported beyond our count") == 1  # round 1's own, the one round whose usage was reported
    assert "This estimate carries round 1's gap" in page and "not the tokenizer of DeepSeek-V4-Flash" in page


def test_the_file_says_a_refused_calls_billing_is_not_known_beside_its_input():
    # The parallel-call pitfall's round 2: the provider refused it with HTTP 400. The Tokens page leaves it out of
    # the input billed; the file says why beside the round's input, as the explorer does.
    trace = catalog.load_bytes((catalog.TRACES_DIR / "pitfalls/unanswered-parallel-call.jsonl").read_bytes(),
                               "pitfalls/unanswered-parallel-call").trace
    page = "".join(_parse(trace_html(trace, summarize(trace, tiktoken_counter(load_encoding("o200k_base"))))).text)
    said = "The call failed, and the log does not say whether the provider billed it."
    assert page.count(said) == 1
    assert ("Tokens: ≈ 204 in, estimated offline (o200k_base); the API reported none. Output tokens: not known (the "
            f"call failed and the error holds no output). {said}") in page


def test_the_file_says_which_rounds_were_completed_by_the_trace_builder(hengxin):
    page = "".join(_parse(trace_html(hengxin)).text)
    assert page.count("Completed from a partial record") == 3 and page.count("As recorded:") == 1


def test_the_rounds_table_of_an_anthropic_trace_names_its_stop_reason_field():
    loaded = catalog.load_bytes((catalog.TRACES_DIR / "order-status-anthropic.jsonl").read_bytes(), "order-status-anthropic")
    page = trace_html(loaded.trace)
    assert "<th>stop reason</th>" in page and "<th>finish reason</th>" not in page


def test_the_file_shows_each_rounds_lessons_whole_under_the_round(hengxin):
    page = trace_html(hengxin)
    text = "".join(_parse(page).text)
    for lesson in hengxin.lessons:
        round_html = page[page.index(f'id="round-{lesson.round}"'):]
        round_text = "".join(_parse(round_html[:round_html.index("</section>")]).text)
        assert lesson.title in round_text and lesson.text in round_text, lesson.title
        assert not lesson.fix or f"The fix: {lesson.fix}" in round_text
    assert text.count("What to notice") == len({lesson.round for lesson in hengxin.lessons})


def test_the_handout_keeps_the_lessons_that_give_an_answer_away_for_the_answers_page(hengxin):
    page = handout_html(hengxin)
    answers = page.index("<h2>Answers</h2>")
    for lesson in hengxin.lessons:
        at = page.index(lesson.title.replace("'", "&#39;"))
        assert (at < answers) == (lesson.step == 1), (lesson.title, lesson.step)  # step 1 is the request's own


def test_a_hostile_lesson_stays_text_in_the_file_and_the_handout():
    lesson = {"kind": "lesson", "round": 1, "step": 1, "title": HOSTILE[:120], "text": HOSTILE, "fix": HOSTILE}
    trace = catalog.load_bytes(hostile_trace() + ("\n" + json.dumps(lesson) + "\n").encode(), "hostile.jsonl").trace
    assert trace.lessons
    for page in (trace_html(trace), handout_html(trace)):
        found = _parse(page)
        assert set(found.tags) <= OUR_TAGS and META not in page and "\u202e" not in page
        assert f"The fix: {SHOWN}" in "".join(found.text)


def test_a_note_reads_in_the_file_as_in_the_explorer_with_its_scores(hengxin):
    # The explorer's line for this note: its target in words, labels, scores, author and time.
    from lib.annotations import Rubric, Score, note_heading

    rubrics = (Rubric("grounded", 0, 3), Rubric("correct", 0, 1, pass_fail=True))
    note = replace(_note("round:2/request.messages[3]", "Grounded in the lookup?"),
                   scores=(Score("grounded", 2.0), Score("correct", 1.0)))
    heading = note_heading(hengxin, note, rubrics)
    assert heading == ('round 2 · request messages[3] · tool · new · result for call_q1: {"expense_id": '
                       '"BX-20261015-0… · question for class · grounded 2 of 0-3 · correct: pass · Ana · '
                       '29 Nov 2026, 10:00 UTC')
    page = trace_html(hengxin, summarize(hengxin, CHARACTER_COUNTER), [note], rubrics)
    shown = re.sub(r"<[^>]+>", "", page).replace("&#34;", '"').replace("&quot;", '"')
    assert heading in shown


def test_the_file_says_where_our_tokenizer_counts_more_than_the_reported_input_instead_of_a_negative_share():
    upload = read_upload([("openai-responses.jsonl", (FIXTURES / "openai-responses.jsonl").read_bytes())])
    trace = upload.conversations[0].trace  # its round 2 reports 59 tokens fewer than our tokenizer counts
    page = "".join(_parse(trace_html(trace, summarize(trace, tiktoken_counter(load_encoding("o200k_base"))))).text)
    assert ("Where the input goes (by our count, 290 in all; the provider reported 231, 59 fewer): instructions 14 · "
            "tool definitions 138 ·") in page
    assert "The reported input is 59 tokens fewer than our count, 26% of the input." in page
    assert "-59" not in page and "not the model's" not in page


def test_the_file_says_the_provider_held_the_earlier_messages_of_a_previous_response_id_chain():
    # Round 2 of the Responses chain sends previous_response_id: the provider holds the question and the model's
    # turn; the program sends only the instructions again and the new items.
    upload = read_upload([("openai-responses.jsonl", (FIXTURES / "openai-responses.jsonl").read_bytes())])
    trace = upload.conversations[0].trace
    page = " ".join(" ".join(_parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text).split())
    assert "2 earlier messages held by the provider (messages[1] to messages[2]), not sent in this request" in page
    assert "1 message resent unchanged (messages[0])" in page
    assert "3 messages resent unchanged" not in page


def test_the_file_and_the_handout_show_the_request_headers_that_shaped_each_call_in_the_explorers_words(app):
    # The Anthropic SDK's tool runner sent anthropic-beta and x-stainless-helper beside the body; the explorer showed
    # them above the request, the file and the handout said nothing of them.
    from tests.screen import uploaded
    fixture = "containers/anthropic-py-tool-runner-compaction-summary.json"
    at = uploaded(app, fixture)
    heading = next(m.value for m in at.markdown if m.value.startswith("**request headers**")).replace("**", "")
    headers = next(t.value for t in at.text if t.value.startswith("anthropic-version"))
    assert headers == ("anthropic-version: 2023-06-01\nanthropic-beta: structured-outputs-2025-12-15\n"
                       "x-stainless-helper: BetaToolRunner")
    trace = read_upload([(fixture, (FIXTURES / fixture).read_bytes())]).conversations[0].trace
    for page in (trace_html(trace), handout_html(trace)):
        said = _parse(page).text
        assert heading in " ".join(" ".join(said).split()) and headers in said
        assert "anthropic-version: 2023-06-01\nx-stainless-helper: compaction" in said  # round 2's own


def test_the_file_says_a_call_sent_none_of_the_headers_a_log_keeps_as_the_explorer_does():
    from lib.live.replay import RECORDINGS_DIR, read_recordings
    from lib.ui.cards import NO_HEADERS
    first = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[0]
    line = {"request": first.request, "response": first.response, "request_headers": {"x-request-id": "1"}}
    trace = read_upload([("p.jsonl", json.dumps(line).encode())]).conversations[0].trace
    assert trace.rounds[0].request_headers == {}
    assert NO_HEADERS in " ".join(_parse(trace_html(trace)).text)
    line.pop("request_headers")  # a log that keeps no headers: nothing said of them
    trace = read_upload([("p.jsonl", json.dumps(line).encode())]).conversations[0].trace
    assert "request headers" not in " ".join(_parse(trace_html(trace)).text).lower()


def test_the_file_does_not_split_the_input_of_a_request_the_log_did_not_keep():
    # Anthropic's batch results keep the answer and its reported usage, not the request: the 1,122 tokens in are
    # not "tokens our tokenizer does not see", and no chat template explains them.
    upload = read_upload([("results.jsonl", (FIXTURES / "anthropic-batch-results.jsonl").read_bytes())])
    trace = upload.conversations[0].trace
    whole = " ".join(_parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text)
    assert "1,122 in, 24 out, as the API reported them" in whole
    assert "Where the input goes" not in whole and "than our count" not in whole
    assert "The request was not in the log, so nothing of it is counted or estimated." in whole


def test_a_handout_of_a_held_chain_counts_the_messages_the_program_sends(responses_chain):
    page = handout_html(responses_chain)
    assert "Round 2: the program sends 3 messages and 2 tools" in page
    assert "Request 2 carried 3 messages." in page and "Request 2 carried 5 messages." not in page


def test_the_files_input_split_names_the_messages_the_provider_held_as_held_never_as_resent(responses_chain):
    # The Responses chain resends the instructions and the tool list, never a message of the conversation: the
    # provider holds those (previous_response_id). Every round's split says so.
    page = " ".join(" ".join(_parse(trace_html(responses_chain, summarize(responses_chain, CHARACTER_COUNTER))).text)
                    .split())
    splits = re.findall(r"Where the input goes [^.]*\.", page)
    assert len(splits) == 4
    assert all("earlier messages (resent) 0 " in split for split in splits)
    assert all("earlier messages held by the provider (billed as input)" in split for split in splits[1:])


def test_the_file_says_a_failed_calls_output_is_not_known_as_the_explorer_does(hengxin):
    # Hengxin's last call refused with a 400: the error holds no output. The explorer's card says "not known"; the
    # file said "≈ 0 out", an estimate of a text that never came back, and 0 in its table.
    last = hengxin.rounds[-1]
    failed = replace(last, response=None, error=ProviderError(status=400, message="refused", body={}))
    trace = replace(hengxin, rounds=(*hengxin.rounds[:-1], failed))
    whole = " ".join(" ".join(_parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text).split())
    assert "≈ 0 out" not in whole
    assert "Output tokens: not known (the call failed and the error holds no output)" in whole
    assert "≈ 51 out" in whole  # round 3 answered: its estimate stands


def test_an_estimate_counted_with_another_models_tokenizer_says_so_in_the_export(order_status):
    # No round of the order status trace reports usage; o200k_base is not Claude's tokenizer.
    page = trace_html(order_status, summarize(order_status, tiktoken_counter(load_encoding("o200k_base"))))
    assert page.count("Estimated with o200k_base, which is not the tokenizer of claude-sonnet-4-5: the provider&#39;s "
                      "own count of this round would differ.") == 2


def test_the_file_writes_the_input_of_a_request_the_log_did_not_keep_as_not_in_the_log_never_0():
    # OpenAI's batch output keeps no request, and trip-20's request expired before it ran. The Tokens page's table
    # says "not in the log" for its tokens in; the file's table said 0 and its round "≈ 0 in, estimated offline",
    # under "The request was not in the log, so nothing of it is counted or estimated."
    upload = read_upload([("output.jsonl", (FIXTURES / "openai-batch-output.jsonl").read_bytes())])
    trace = next(c.trace for c in upload.conversations if c.id == "trip-20-expired")
    cells = _parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text
    whole = " ".join(cells)
    assert "≈ 0 in" not in whole
    assert "Tokens: input not in the log; the API reported none." in whole
    row = cells[cells.index("1", cells.index("tokens are")):][:7]
    assert row[4:6] == ["not in the log", "not known"]


def test_the_file_says_an_estimate_counted_with_another_models_tokenizer_is_approximate():
    # hermes-agent's transcript names kimi-k2.6 and reports no usage; "auto" counts with o200k_base, not Kimi's own.
    upload = read_upload([("hermes.jsonl", (FIXTURES / "sharegpt-hermes-agent.jsonl").read_bytes())])
    trace = upload.conversations[0].trace
    counter = tiktoken_counter(load_encoding("o200k_base"))
    whole = " ".join(" ".join(_parse(trace_html(trace, summarize(trace, counter))).text).split())
    assert ("Estimated with o200k_base, which is not the tokenizer of kimi-k2.6: the provider's own count of this "
            "round would differ.") in whole
    # Where nothing was counted (a failed batch call the log kept no request for), no count is called approximate.
    upload = read_upload([("results.jsonl", (FIXTURES / "anthropic-batch-results.jsonl").read_bytes())])
    failed = next(c.trace for c in upload.conversations if c.id == "ticket-8")
    assert "which is not the tokenizer of" not in trace_html(failed, summarize(failed, counter))


def test_the_files_table_counts_messages_sent_and_tool_calls_as_the_tokens_page_does(responses_chain):
    # The Responses chain's round 2 sends 3 messages; the provider holds 2 more (previous_response_id). The file's
    # heading said so, and its table counted 5 "messages sent". A log of bare responses kept no request: the table
    # said 0 messages sent, where the Tokens page says "not in the log".
    rows = summarize(responses_chain, CHARACTER_COUNTER)
    cells = _parse(trace_html(responses_chain, rows)).text
    table = cells[cells.index("tokens are") + 1:]
    assert table[1:3] == [str(rows[0].sent_if_known), str(rows[0].calls_if_known)]
    assert table[7:10] == ["2", str(rows[1].sent_if_known), "0"] and rows[1].sent_if_known == 3
    upload = read_upload([("bare.jsonl", (FIXTURES / "bare-responses.jsonl").read_bytes())])
    bare = upload.conversations[0].trace
    cells = _parse(trace_html(bare, summarize(bare, CHARACTER_COUNTER))).text
    table = cells[cells.index("tokens are") + 1:]
    assert table[:3] == ["1", "not in the log", "2"]
    # A log of requests alone ends on request 2: what came back, tool calls included, is not in the log.
    upload = read_upload([("requests.jsonl", (FIXTURES / "requests-only.jsonl").read_bytes())])
    ends = upload.conversations[0].trace
    cells = _parse(trace_html(ends, summarize(ends, CHARACTER_COUNTER))).text
    table = cells[cells.index("tokens are") + 1:]
    assert table[7:10] == ["2", "5", "not in the log"]


def test_every_prediction_page_of_the_handout_asks_the_same_and_only_the_answers_say_the_last_is_not_scored(hengxin):
    # Round 4's page said "This is the trace's last round: no request follows it, so there are no messages to count."
    # where the others asked for the next request's messages: it told the learner that the model answers there,
    # before they predicted.
    page = handout_html(hengxin)
    answers = page.index("<h2>Answers</h2>")
    forms = re.findall(r'<div class="predict">(.*?)</div>', page[:answers], re.S)
    assert len(forms) == 4 and len(set(forms)) == 1
    assert "How many messages will the next request carry?" in forms[0]
    # Round 1 calls two tools in parallel: the page has room for several, as the app's form does.
    assert "Which tools (several, for calls in parallel):" in forms[0]
    assert "last round" not in page[:answers] and "no request follows" not in page[:answers]
    assert page[answers:].count("The trace has no next request: the messages asked for on this round's page are "
                                "not scored.") == 1


def test_the_export_says_a_model_turn_the_span_did_not_capture_was_not_captured_not_that_it_was_empty():
    # The explorer's card says so (Round.answer_recorded); the trace file said "(no content)", as if the model wrote
    # nothing, for a span written without content capture.
    upload = read_upload([("spans.jsonl", (FIXTURES / "otlp-span-per-call-no-content.jsonl").read_bytes())])
    page = trace_html(upload.conversations[0].trace)
    assert "(no content)" not in page
    assert "The log did not capture this turn&#39;s content: what the model wrote is not in the record." in page


def _claude_stream_json():
    upload = read_upload([("run.jsonl", (FIXTURES / "claude-stream-json-read.jsonl").read_bytes())])
    return upload.conversations[0].trace


def test_the_files_stop_reason_column_reads_as_the_tokens_pages_table():
    # Claude Code's assistant lines, written before the response ends, carry no stop_reason: the Tokens page's table
    # says "(tool_calls)" and "(end)", read from the message; the file's column was blank.
    trace = _claude_stream_json()
    rows = summarize(trace, CHARACTER_COUNTER)
    assert [r.finish_reason for r in rows] == ["(tool_calls)", "(end)"]
    cells = _parse(trace_html(trace, rows)).text
    start = cells.index("tokens are") + 1
    assert cells[start:start + 14] == ["1", "not in the log", "1", "(tool_calls)", "21,214", "3", "reported",
                                       "2", "2", "0", "(end)", "43,478", "1", "reported"]


def test_a_handout_of_a_claude_code_log_does_not_say_its_program_sent_0_tools():
    # Claude Code sent 29 tools (its init line names them) and logs none of them: not "2 messages and 0 tools".
    whole = " ".join(" ".join(_parse(handout_html(_claude_stream_json())).text).split())
    assert "0 tools" not in whole
    assert "Round 2: the program sends 2 messages; the log keeps no tool list" in whole


def test_a_stop_the_importer_read_off_the_message_is_not_exported_as_a_recorded_stop_signal():
    # Goose keeps no stop_reason: the explorer says the stop was read from the message, and so does the file.
    upload = read_upload([("goose-session.jsonl", (FIXTURES / "goose-session.jsonl").read_bytes())])
    text = " ".join(" ".join(_parse(trace_html(upload.conversations[0].trace)).text).split())
    assert "Stop signal stop_reason" not in text
    assert "The log records no stop signal; read as stop_reason 'tool_use' from the message." in text


def test_the_file_gives_an_executions_run_time_as_the_explorer_does():
    # A Codex command's end written before its output, its duration {secs: 1, nanos: 250_600_000}: 1250.6 ms, which
    # the explorer's step 3 shows as "1,251 ms" (lib.text.milliseconds).
    def line(kind, payload):
        return json.dumps({"timestamp": "2026-05-11T08:27:00.000Z", "type": kind, "payload": payload})
    rollout = "\n".join([
        line("session_meta", {"id": "s-1"}),
        line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ls"}]}),
        line("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\": \"ls\"}",
                               "call_id": "call_1"}),
        line("event_msg", {"type": "exec_command_end", "call_id": "call_1", "exit_code": 0,
                           "duration": {"secs": 1, "nanos": 250_600_000}}),
        line("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}),
        line("response_item", {"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": "a.txt"}]})])
    trace = read_upload([("rollout.jsonl", rollout.encode())]).conversations[0].trace
    assert trace.rounds[0].executions[0].duration_ms == 1250.6
    text = "".join(_parse(trace_html(trace)).text)
    assert "handler exec_command · call call_1 · ok · 1,251 ms" in text and "1250.6" not in text


def test_the_file_says_a_tool_list_sent_but_not_kept_is_not_in_the_log_never_0_tokens():
    # LangSmith's support_agent run kept the messages, not the tool list its calls prove was sent and billed.
    upload = read_upload([("runs.jsonl", (FIXTURES / "langsmith-runs.jsonl").read_bytes())])
    support = next(c.trace for c in upload.conversations if len(c.trace.rounds[0].request.tools) == 0)
    page = " ".join(" ".join(_parse(trace_html(support, summarize(support, CHARACTER_COUNTER))).text).split())
    assert "tool definitions not in the log" in page and "tool definitions 0" not in page
    assert ("The log kept no tool list, though the model called tools: the list was sent, but it is neither shown "
            "nor counted here.") in page


def test_the_file_says_a_gemini_cli_answer_came_back_without_its_thoughts_as_the_explorer_does():
    # Round 3's request carries round 2's calls without the two thought summaries the answer came with.
    upload = read_upload([("session.jsonl", (FIXTURES / "gemini-cli-session.jsonl").read_bytes())])
    trace = upload.conversations[0].trace
    page = "".join(_parse(trace_html(trace)).text)
    assert "the model's turn from the previous response, appended without its thought summaries" in page


def test_the_file_says_once_that_a_gemini_cli_session_ends_before_a_request_carries_its_last_results():
    # Round 6's two calls ran; no answer came after them: said once under them, as the explorer says it.
    upload = read_upload([("session.jsonl", (FIXTURES / "gemini-cli-session.jsonl").read_bytes())])
    page = "".join(_parse(trace_html(upload.conversations[0].trace)).text)
    assert page.count("ends before the next request") + page.count("ends on this result") == 1
    assert "The log ends before the next request: no request carries these results back to the model." in page


def test_the_file_shows_gemini_clis_messages_before_a_request_and_after_a_round_as_text_marked_as_the_clis():
    # Line 2: "Empty GEMINI.md created. ..." was shown before round 1's request; line 27 "Request cancelled." after
    # round 6: the file shows each where the explorer does, beside the round's provenance and under its program lane.
    upload = read_upload([("session.jsonl", (FIXTURES / "gemini-cli-session.jsonl").read_bytes())])
    page = trace_html(upload.conversations[0].trace)
    text = " ".join(" ".join(_parse(page).text).split())
    before = "Gemini CLI's message before this request (info): Empty GEMINI.md created. Now analyzing the project"
    assert text.count(before) == 1
    assert text.count("Gemini CLI's message after this round (info): Request cancelled.") == 1
    round_1, round_6 = page.split('id="round-1"')[1].split('id="round-2"')[0], page.split('id="round-6"')[1]
    assert "Empty GEMINI.md created." in round_1 and "Request cancelled." in round_6
    assert "<pre>Request cancelled.</pre>" in round_6


def test_a_claude_code_rounds_reported_input_says_in_the_export_what_the_cache_and_reasoning_hold_as_the_explorer_does():
    # Claude Code reports 10 uncached input tokens beside 22,820 read from the cache and 9,907 written to it for an
    # hour: the export's 32,737 in holds them all, and says so in the explorer's words.
    path = FIXTURES / "claude-code-2.1.233.jsonl"
    trace = read_upload([(path.name, path.read_bytes())]).conversations[0].trace
    page = trace_html(trace, summarize(trace, CHARACTER_COUNTER))
    assert ("Tokens: 32,737 in, 135 out, as the API reported them. 22,820 read from the prompt cache, 9,907 written to "
            "it for an hour (included in the input); 49 reasoning tokens (included in the output).") in page


def test_the_file_says_a_turn_sent_on_to_another_providers_api_was_written_over_in_its_format():
    # Round 2 sends gpt-5's answer on to claude-sonnet-4-0 in the Messages format: the file called it "an assistant
    # turn the program put in the history, not the previous response as it came back".
    name = "containers/pyd-openai-then-anthropic-history.yaml"
    trace = read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace
    page = " ".join(" ".join(_parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text).split())
    assert "an assistant turn the program put in the history" not in page
    assert "an assistant turn the program wrote over in another API's format" in page


def test_the_file_draws_a_reference_to_an_earlier_item_as_what_it_names():
    # pyd-responses-compact-inline.yaml's fourth request sending the compacted item by an `item_reference`: the file
    # said "A item_reference part, shown as the payload holds it".
    from tests.test_app_real_traffic import _compacted_then_referenced
    upload = read_upload([("compacted.yaml", _compacted_then_referenced())])
    trace = upload.conversations[0].trace
    page = " ".join(" ".join(_parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text).split())
    assert "A item_reference part" not in page
    assert ("A reference to an earlier item by its id: the program sends the id, not the item, and the provider puts "
            "the item it stored under that id in its place. It names the id cmp_") in page
    assert "That is the compacted history the provider returned in round 3's response." in page


def test_the_file_names_the_model_of_a_call_made_inside_a_round():
    # Anthropic's advisor tool: claude-opus-4-7 advising inside the round (`usage.iterations`' `advisor_message`).
    # The file said "one call to another model inside this round (2,728 in, 874 out), billed at its model's rates"
    # and never which model, which the explorer names.
    name = "containers/vercel-anthropic-advisor-usage.json"
    trace = read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace
    page = " ".join(" ".join(_parse(trace_html(trace, summarize(trace, CHARACTER_COUNTER))).text).split())
    # A sentence of its own after "as the API reported them.": it starts with a capital.
    assert ("as the API reported them. One call to another model inside this round (2,728 in, 874 out), billed at its "
            "model's rates: not in these token counts. Called inside this round: claude-opus-4-7.") in page


def test_the_top_level_system_field_is_marked_new_as_the_messages_beside_it_are():
    # The first request's system field and messages are all new; the file marked the messages, not the system prompt.
    trace = catalog.load_bytes((catalog.TRACES_DIR / "order-status-anthropic.jsonl").read_bytes(),
                               "order-status-anthropic").trace
    page = trace_html(trace)
    assert "<b>system</b> (a top-level field, outside the messages array) · new this round</div>" in page
    handout = handout_html(trace)
    assert "<b>system</b> (a top-level field, outside the messages array) · new this round</div>" in handout


def test_the_handout_asks_no_prediction_of_a_round_the_provider_refused_and_says_why_there_is_none():
    # Round 2 of the unanswered-parallel-call pitfall was refused with HTTP 400: the model never answered it, yet its
    # page asked the room what the model would do, a question with no answer among the answers at the end.
    trace = load_bundled("pitfalls/unanswered-parallel-call").trace
    page = handout_html(trace)
    answers = page.index("<h2>Answers</h2>")
    pages = re.findall(r'<section class="page"><h2>Round (\d+):(.*?)</section>', page[:answers], re.S)
    asked = {int(k): "Your prediction" in body for k, body in pages}
    assert asked == {1: True, 2: False, 3: True}
    refused = dict(pages)["2"]
    assert ("Nothing to predict in this round: the call failed (HTTP 400), so no response from the model came back. "
            "The answers at the end show what the log holds.") in refused
    assert "The call failed: HTTP 400. The provider said:" in page[answers:]


def _file_text(page: str) -> str:
    return " ".join(_parse(page).text)


def test_the_file_shows_what_the_checks_page_shows_each_finding_and_the_count(app):
    # A teacher who handed out the file handed out less than the screen: none of the Checks page's findings (the
    # unanswered parallel call of this pitfall, an error) was in it.
    app.query_params["trace"] = "pitfalls/unanswered-parallel-call"
    at = app.run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    trace = load_bundled("pitfalls/unanswered-parallel-call").trace
    page = _file_text(trace_html(trace, summarize(trace, CHARACTER_COUNTER)))
    shown = [t.value for t in at.text]
    assert any("round 2 request messages[2]" in line for line in shown)
    # Each finding's place and words, and the pitfall's explanation above them.
    assert [line for line in shown if line not in page] == []
    count = next(c.value for c in at.caption if c.value.endswith("the JSON path of the part it is about."))
    assert count.startswith("2 errors") and count in page
    assert "Errors (2)" in page and "What happened, what the model saw, and the fix" in page


def test_a_clean_trace_file_says_the_checks_found_nothing():
    trace = load_bundled("loan-calculator").trace
    page = _file_text(trace_html(trace))
    assert "Checks No pitfalls found in this trace." in " ".join(page.split())


def test_the_file_shows_the_money_worked_out_in_decimal_beside_the_call_that_hands_over_two_amounts(hengxin):
    # The explorer shows it in round 2's program lane; the file showed only the handler's float arguments (3860.0).
    page = trace_html(hengxin)
    lane = page[page.index('id="round-2"'):page.index('id="round-3"')]
    text = _file_text(lane)
    assert "Money as the program should compute it" in text
    assert "The log does not record how the handler did its arithmetic." in text
    assert "actual_amount > limit_amount  # 3860.00 > 3800.00: over by 60.00" in text
    assert "Money as the program" not in _file_text(page[page.index('id="round-3"'):])  # no other call has two amounts


def test_the_file_says_what_the_checks_page_says_of_the_parts_the_upload_could_not_read(app):
    # A Claude Code session whose tool_result line (line 8) was cut short: the Checks page says the transcript records
    # no result for the Bash call and, beside it, that a part of the file could not be read and may be what is
    # missing. The file said only the first: a teacher who handed it out showed less than the screen.
    lines = (FIXTURES / "claude-code-2.1.233.jsonl").read_bytes().splitlines(keepends=True)
    lines[7] = lines[7][:120] + b"\n"
    data = b"".join(lines)
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("session.jsonl", data)
    at.run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    upload = read_upload([("session.jsonl", data)])
    [conversation] = upload.conversations
    page = _file_text(trace_html(conversation.trace, problems=upload.problems))
    said = [c.value for c in at.main.caption]
    assert any(line.startswith("The file had 1 part that could not be read (the sidebar lists it)") for line in said)
    # Every caption of the Checks page, the count and the note on the part not read, and every finding's words.
    assert [line for line in said + [t.value for t in at.main.text] if line not in page] == []


def test_a_clean_trace_file_with_a_line_it_could_not_read_does_not_say_the_trace_has_no_pitfalls():
    # As the Checks page: none found in what loaded is not none in the file, whose line 3 held something.
    from lib.logs.record import Problem
    trace = load_bundled("loan-calculator").trace
    page = " ".join(_file_text(trace_html(trace, problems=[Problem(3, "unexpected end of data")])).split())
    assert "Checks No pitfalls found in what the log kept. The file had 1 part that could not be read" in page
    assert "No pitfalls found in this trace." not in page


def test_the_checks_page_and_the_file_count_the_parts_not_read_as_the_sidebar_does_past_the_listed_ones(app):
    # A session followed by 1,500 broken lines: the sidebar says "1,500 lines skipped" and lists the first 1,000 with a
    # closing line for the rest. The Checks page said "The file had 1,001 parts that could not be read": the listed
    # problems and the closing line, counted.
    data = (FIXTURES / "claude-code-2.1.233.jsonl").read_bytes() + b"{broken\n" * 1500
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("session.jsonl", data)
    at.run()
    assert any(t.value.endswith("1,500 lines skipped") for t in at.sidebar.text)
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    said = "The file had 1,500 parts that could not be read (the sidebar lists them)"
    assert any(c.value.startswith(said) for c in at.main.caption)
    upload = read_upload([("session.jsonl", data)])
    page = _file_text(trace_html(upload.conversations[0].trace, problems=upload.problems,
                                 skipped=upload.skipped_lines))
    assert said in page and "1,001" not in page


def _uploaded(name):
    """The first conversation of a recording in tests/fixtures/containers, uploaded."""
    return read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations[0].trace


def test_the_file_says_a_retried_request_is_one_round_sent_three_times():
    # The Anthropic Python SDK's two 429s then a 200 for one request: the file said rounds 2 and 3 were retries.
    page = "".join(_parse(trace_html(_uploaded("anthropic-py-rate-limited-twice-then-answered.json"))).text)
    assert "This request was sent 3 times, unchanged: HTTP 429, HTTP 429, then an answer." in page
    assert "sent again after that call failed" not in page


def test_the_file_lists_each_failed_try_of_a_retried_request_with_what_the_provider_sent():
    # It said the failed tries were kept with the round and listed none of them: the explorer shows each.
    text = _parse(trace_html(_uploaded("anthropic-py-rate-limited-twice-then-answered.json"))).text
    assert "Failed tries as the log kept them: 2" in text
    for number, request_id in ((1, "req_011CYK5mje9HkutJtmfPzzNC"), (2, "req_011CYK5mnscLpxFuMxiDHt26")):
        body = json.loads(text[text.index(f"Try {number} of 3 failed: HTTP 429.") + 1])
        assert body["error"]["type"] == "rate_limit_error" and body["request_id"] == request_id


def test_the_file_says_a_brotli_error_body_was_not_decoded_not_that_the_provider_said_its_status():
    # It showed "HTTP 401" under "The provider said:", words Roundtrip wrote, the body being brotli-compressed.
    text = _parse(trace_html(_uploaded("ddtrace-js-claude-agent-sdk-401-brotli.json"))).text
    said = text[text.index("The call failed: HTTP 401. The provider said:") + 1]
    assert said.startswith("Its response body came brotli-compressed (content-encoding: br) and was not decoded")


def test_the_handout_does_not_say_a_request_sent_a_tool_list_the_provider_holds():
    # Gemini's Interactions API: request 2 names the interaction before it and carries the function result alone.
    # The handout's page read "Round 2: the program sends 1 message and 1 tool".
    from pathlib import Path

    from lib.export_html import handout_html
    from lib.logs.upload import read_upload

    name = "rig-gemini-interactions-tool-result.yaml"
    data = (Path(__file__).parent / "fixtures" / "containers" / name).read_bytes()
    page = handout_html(read_upload([(name, data)], None).conversations[0].trace)
    assert "Round 1: the program sends 1 message and 1 tool</h2>" in page
    assert "Round 2: the program sends 1 message; no tools: the provider holds the 1 tool sent earlier</h2>" in page
