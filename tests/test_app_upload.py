"""Uploading a log in the real app: the summary, the skipped lines, the conversation picker."""

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lib.logs import format_names
from tests.screen import screen

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


def _upload(app, *files):
    at = app.run()
    uploader = at.file_uploader(key="sidebar.upload")
    for name, data in files:
        uploader.upload(name, data)
    at.run()
    assert not at.exception
    return at


def test_a_mixed_file_shows_its_summary_skipped_lines_and_conversations(app):
    openai = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    anthropic = (FIXTURES / "anthropic-pairs.jsonl").read_bytes().splitlines()
    mixed = b"\n".join([openai[0], b"{oops", anthropic[0], openai[1], b"", anthropic[1], openai[2], openai[3]])
    at = _upload(app, ("mixed.jsonl", mixed))
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "8 lines: 6 rounds in 3 conversations; 2 lines skipped" in sidebar
    skipped = " ".join(t.value for t in at.sidebar.text)
    assert "line 2: is not valid JSON" in skipped and "line 5: is empty" in skipped
    assert "4 lines read as openai-chat" in sidebar and "2 lines read as anthropic-messages" in sidebar
    picker = at.selectbox(key="sidebar.conversation")
    assert picker.options == ["conversation 1 · 2 rounds", "ticket-7 · 2 rounds", "conversation 3 · 2 rounds"]
    assert any("conversation 1" in t.value for t in at.main.text)  # the title, as text
    picker.set_value(1).run()
    assert next(s.value for s in at.subheader if s.value.startswith("Round ")) == "Round 1: the program sends 1 message, 1 of them new"
    assert any("ticket-7" in t.value for t in at.main.text)


def test_a_forced_format_rereads_the_file(app):
    at = _upload(app, ("pairs.jsonl", (FIXTURES / "openai-pairs.jsonl").read_bytes()))
    at.selectbox(key="sidebar.format").set_value("anthropic-messages").run()
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "4 lines: 0 rounds in 0 conversations; 4 lines skipped" in sidebar
    assert any("no readable rounds" in w.value for w in at.warning)


@pytest.mark.parametrize("forced", [name for name in format_names() if name != "openai-chat"])
def test_a_format_forced_on_lines_it_does_not_fit_skips_every_line_in_plain_words(app, forced):
    # Chat Completions pairs read as anything else: each line is skipped, and why is said in our words. None is a
    # page load "not a model call" (they are model calls, in another format), and no Python exception is named.
    at = _upload(app, ("pairs.jsonl", (FIXTURES / "openai-pairs.jsonl").read_bytes()))
    at.selectbox(key="sidebar.format").set_value(forced).run()
    assert not at.exception
    sidebar = [t.value for t in at.sidebar.text]
    assert sidebar[0] == "4 lines: 0 rounds in 0 conversations; 4 lines skipped"
    assert not [line for line in sidebar if re.search(r"\b[A-Z][a-z]+(Error|Exception)\b|Traceback|\bNone\b", line)]


def test_two_files_of_one_batch_are_joined(app):
    names = sorted(p.name for p in FIXTURES.glob("openai-batch*.jsonl"))
    files = [(name, (FIXTURES / name).read_bytes()) for name in names]
    at = _upload(app, *files)
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "0 lines skipped" in sidebar
    # Its requests are in one file and its answers in the other: both are named, not the requests' file alone.
    title = "openai-batch-input.jsonl + openai-batch-output.jsonl · trip-17-round-1"
    assert any(title in t.value for t in at.main.text)


CONTAINERS = FIXTURES / "containers"


def test_an_inspect_eval_log_opens_through_the_sidebar_naming_its_format_and_rule(app):
    at = _upload(app, ("arithmetic.eval", (CONTAINERS / "inspect-arithmetic-with-tool.eval").read_bytes()))
    sidebar = [t.value for t in at.sidebar.text]
    assert "2 samples: 4 rounds in 2 conversations; 0 samples skipped" in sidebar
    captions = " ".join(sidebar)
    assert "lines" not in captions  # an .eval is a zip of samples, not a file of lines
    assert "2 samples read as inspect: a sample with 'id', 'epoch' and 'events' (an Inspect AI eval log)" in captions
    assert at.selectbox(key="sidebar.conversation").options == ["sample 1 epoch 1 · 2 rounds", "sample 2 epoch 1 · 2 rounds"]


def test_a_cassette_opens_through_the_sidebar(app):
    at = _upload(app, ("test_tool_calls.yaml", (CONTAINERS / "pydantic-ai-openai-tool-calls.yaml").read_bytes()))
    captions = " ".join(t.value for t in at.sidebar.text)
    assert "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped" in captions
    assert "2 interactions read as vcr-cassette: an interaction with request.uri and response.status (a VCR cassette)" in captions
    assert next(s.value for s in at.subheader if s.value.startswith("Round ")).startswith("Round 1: the program sends 2 messages")


def test_a_har_file_is_counted_in_entries_through_the_sidebar(app):
    # Recorded by Chromium: the page that ran the loop, then its two calls.
    at = _upload(app, ("session.har", (CONTAINERS / "chromium-openai-tool-calls.har").read_bytes()))
    captions = " ".join(t.value for t in at.sidebar.text)
    assert "3 entries: 2 rounds in 1 conversation; 1 entry not a model call; 0 entries skipped" in captions
    assert "3 entries read as har: an entry with request.url and response.content (a HAR file)" in captions
    assert "lines" not in captions

    har = json.loads((CONTAINERS / "chromium-openai-tool-calls.har").read_bytes())
    har["log"]["entries"].append("not an entry")
    at = _upload(app, ("broken.har", json.dumps(har).encode()))
    captions = " ".join(t.value for t in at.sidebar.text)
    assert "4 entries: 2 rounds in 1 conversation; 1 entry not a model call; 1 entry skipped" in captions
    assert [e.label for e in at.sidebar.expander if e.label.startswith("Skipped")] == ["Skipped entries (1)"]


def test_spans_recorded_without_content_capture_say_what_they_lack_and_show_what_they_kept(app):
    # Written by the real opentelemetry-instrumentation-openai-v2 left at its default: content capture off.
    at = _upload(app, ("spans.jsonl", (FIXTURES / "otlp-span-per-call-no-content.jsonl").read_bytes()))
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "1 line: 2 rounds in 2 conversations; 1 span not a model call; 0 lines skipped" in sidebar
    assert "2 model-call spans carry no messages" in sidebar
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in sidebar
    page = " ".join(t.value for t in at.main.text) + " ".join(c.value for c in at.main.caption)
    assert "did not capture" in page


def test_openinference_spans_with_hidden_messages_say_which_variable_hid_them(app):
    # Written by the real openinference-instrumentation-openai with OPENINFERENCE_HIDE_INPUTS/OUTPUTS set.
    at = _upload(app, ("spans.jsonl", (FIXTURES / "otlp-span-per-call-openinference-hidden.jsonl").read_bytes()))
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "2 model-call spans carry no messages: OpenInference hid them, as" in sidebar
    assert "OPENINFERENCE_HIDE_INPUTS" in sidebar and "OPENINFERENCE_HIDE_OUTPUTS" in sidebar
    page = " ".join(t.value for t in at.main.text) + " ".join(c.value for c in at.main.caption)
    assert "OPENINFERENCE_HIDE_INPUTS" in page


def test_a_swe_agent_run_shows_its_own_model_stats_beside_the_upload_not_in_our_figures(app):
    at = _upload(app, ("run.traj", (FIXTURES / "containers" / "swe-agent-test-repo.traj").read_bytes()))
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "the run's own info.model_stats: 7,141 tokens sent, 243 received over 5 API calls" in sidebar
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert "the run's own info.model_stats" in " ".join(t.value for t in at.sidebar.text)  # beside the Tokens page
    assert not any(m.value.replace(",", "").startswith(("7141", "≈ 7141")) for m in at.metric)



def _swe_agent_run(instance: str, tokens_sent: int) -> bytes:
    run = json.loads((FIXTURES / "containers" / "swe-agent-test-repo.traj").read_bytes())
    run["info"]["instance_id"] = instance
    run["info"]["model_stats"]["tokens_sent"] = tokens_sent
    return json.dumps(run).encode()


def test_the_tokens_page_shows_each_swe_agent_runs_own_model_stats_beside_its_figures_never_in_them(app):
    # Two runs uploaded together: the run's own count was said in the sidebar only, for the whole upload. The Tokens
    # page, where our figures are, says the count of the run on screen, as text of its own, not in a metric.
    at = _upload(app, ("a.traj", _swe_agent_run("task-a", 7141)), ("b.traj", _swe_agent_run("task-b", 9000)))
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    page = " ".join(t.value for t in at.main.text)
    assert "the run's own info.model_stats: 7,141 tokens sent, 243 received over 5 API calls" in page
    assert "9,000 tokens sent" not in page
    assert not any("model_stats" in f"{m.label} {m.value} {m.help}" for m in at.metric)
    at.selectbox(key="sidebar.conversation").set_value(1).run()
    page = " ".join(t.value for t in at.main.text)
    assert "9,000 tokens sent" in page and "7,141 tokens sent" not in page

def test_after_a_page_switch_the_sidebar_says_which_upload_is_open_though_the_uploader_shows_none(app):
    # Streamlit drops a file uploader's files on another page: the uploader read empty while the Trace box still
    # named the upload, as if nothing were open.
    from lib.ui.picker import UPLOAD_STILL_OPEN
    at = _upload(app, ("requests-only.jsonl", (FIXTURES / "requests-only.jsonl").read_bytes()))
    said = lambda: [c.value for c in at.sidebar.caption] + [t.value for t in at.sidebar.text]  # noqa: E731
    assert not any("requests-only.jsonl" in line for line in said())  # the uploader itself shows the file
    at.switch_page("pages/overview.py").run()
    assert at.file_uploader(key="sidebar.upload").value == []
    assert UPLOAD_STILL_OPEN in said() and "requests-only.jsonl" in said()


def test_a_streamed_answer_saved_as_server_sent_events_opens_as_one_round_whose_request_was_not_logged(app):
    at = _upload(app, ("answer.sse", (FIXTURES / "anthropic-stream.sse").read_bytes()))
    sidebar = " ".join([t.value for t in at.sidebar.text] + [c.value for c in at.sidebar.caption])
    assert "30 lines: 1 round in 1 conversation; 0 lines skipped" in sidebar
    assert "read as server-sent events" in sidebar
    shown = screen(at)
    assert shown.count("pelican_name_generator") >= 2  # both calls of the answer
    assert "not in the log" in shown


def test_a_claude_code_session_log_opens_in_the_explorer_naming_its_format_and_what_the_log_lacks(app):
    at = _upload(app, ("3f2a.jsonl", (FIXTURES / "claude-code-session.jsonl").read_bytes()))
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "12 lines: 6 rounds in 1 conversation; 1 line not a model call; 0 lines skipped" in sidebar
    assert "12 lines read as claude-code:" in sidebar and "(a Claude Code session log)" in sidebar
    assert at.selectbox(key="sidebar.conversation").options == ["session test_session · 6 rounds"]
    assert next(s.value for s in at.subheader if s.value.startswith("Round ")).startswith("Round 1: the program sends 1")
    shown = screen(at)
    assert "Claude Code does not log its system prompt: it was sent" in shown


def test_a_claude_code_session_without_tool_calls_does_not_say_its_request_had_no_tools(app):
    # Claude Code sends its tool list with every request, whether or not the model calls a tool: said, not doubted.
    from lib.summary import TOOL_LIST_SENT_NOT_LOGGED
    from tests.test_claude_code import CHAT_ONLY
    at = _upload(app, ("s-2.jsonl", "\n".join(json.dumps(line) for line in CHAT_ONLY).encode()))
    shown = screen(at)
    assert "It reads logs." in shown and TOOL_LIST_SENT_NOT_LOGGED in shown
    assert "whether or not one was sent" not in shown
    assert "No tools in this request" not in shown


def test_a_file_no_format_reads_names_each_skipped_line_once(app):
    # Two objects no format reads: line 1's one entry says why the file matched nothing (what came closest), in place
    # of a second entry on the same line saying it matches no known log format.
    at = _upload(app, ("notes.jsonl", b'{"city": "Paris", "unit": "celsius"}\n{"city": "Oslo"}\n'))
    skipped = next(e for e in at.sidebar.expander if e.label.startswith("Skipped"))
    listed = "\n".join(t.value for t in skipped.text).splitlines()
    assert [entry.split(":")[0] for entry in listed] == ["line 1", "line 2"]
    assert listed[0].startswith("line 1: no line of the file matches a known log format; none comes close")
    assert listed[1] == "line 2: matches no known log format"


def test_a_reloaded_page_says_its_upload_closed_and_does_not_show_another_trace_at_the_uploads_round(app):
    # A reload ends the session, and the upload with it. The address kept only ?round=3, so the reloaded page showed
    # the first bundled trace at round 3 without a word: the user's log gone, another trace in its place, at its round.
    at = _upload(app, ("agent.yaml", (FIXTURES / "containers" / "crewai-openai-max-usage.yaml").read_bytes()))
    address = {name: at.query_params[name] for name in at.query_params}
    assert "upload" in address and "trace" not in address
    reloaded = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for name, value in {**address, "round": "3"}.items():
        reloaded.query_params[name] = value
    reloaded.run()
    assert not reloaded.exception
    assert any("no longer open" in w.value and "reloading the page" in w.value for w in reloaded.warning)
    assert next(s.value for s in reloaded.subheader if s.value.startswith("Round ")).startswith("Round 1:")
    assert "upload" not in reloaded.query_params and reloaded.query_params.get("round") in (None, "1")
    # A first visit with no such address says nothing of uploads.
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not [w for w in fresh.warning if "no longer open" in w.value]


def test_the_checks_page_counts_the_unread_lines_of_several_files_as_the_sidebar_does(app):
    # Two files, each broken on its line 2: the sidebar said 2 lines skipped (once counted by file), the Checks page
    # "The file had 1 part that could not be read".
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    at = _upload(app, ("a.jsonl", b"\n".join([good[0], b"{x"])), ("b.jsonl", b"\n".join([good[2], b"{y"])))
    assert "4 lines: 2 rounds in 1 conversation; 2 lines skipped" in [t.value for t in at.sidebar.text]
    at.switch_page("pages/checks.py").run()
    said = " ".join(c.value for c in at.main.caption)
    assert "The files had 2 parts that could not be read" in said


def test_a_request_the_sdk_retried_after_two_429s_shows_as_one_round_with_its_tries(app):
    # The Anthropic Python SDK's retries of one request (429, 429, 200) read as three rounds, rounds 2 and 3 "sent
    # again", where a live run reads one round with its tries.
    name = "anthropic-py-rate-limited-twice-then-answered.json"
    at = _upload(app, (name, (FIXTURES / "containers" / name).read_bytes()))
    assert ("3 elements: 1 round in 1 conversation; 1 round sent more than once (conversation 1, round 1: HTTP 429, "
            "HTTP 429, then an answer); 0 elements skipped") in " ".join(t.value for t in at.sidebar.text)
    said = " ".join(c.value for c in at.main.caption)
    assert ("This request was sent 3 times, unchanged: HTTP 429, HTTP 429, then an answer. The round shows the last "
            "try; the failed tries are kept with it.") in said
    # Each failed try stays visible: its status and what the provider said.
    assert "Try 1 of 3 failed: HTTP 429." in said and "Try 2 of 3 failed: HTTP 429." in said
    assert any("rate_limit_error" in str(j.value) for j in at.main.json)
    # Folded, so the round's own answer is not pushed below two error bodies.
    assert "Failed tries as the log kept them: 2" in [e.label for e in at.expander]


def test_an_error_body_recorded_brotli_compressed_says_on_screen_it_was_not_decoded(app):
    # The round showed "The call failed: HTTP 401. The provider said:" above "HTTP 401", words the provider never sent.
    name = "ddtrace-js-claude-agent-sdk-401-brotli.json"
    at = _upload(app, (name, (FIXTURES / "containers" / name).read_bytes()))
    sidebar = " ".join([t.value for t in at.sidebar.text] + [c.value for c in at.sidebar.caption])
    assert "came brotli-compressed (content-encoding: br) and was not decoded" in sidebar
    assert any("Its response body came brotli-compressed (content-encoding: br) and was not decoded: Roundtrip cannot "
               "decode brotli here, so what the provider said is not known." in c.value for c in at.main.caption)


def test_the_skipped_lines_of_several_files_are_listed_under_each_files_name_in_the_order_given(app):
    # The sidebar listed them by line number across files: "b.jsonl, line 2" above "a.jsonl, line 7".
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    at = _upload(app, ("a.jsonl", b"\n".join([good[0], good[1], good[2], good[3], good[0], good[1], b"{x"])),
                 ("b.jsonl", b"\n".join([good[2], b"{y"])))
    skipped = next(e for e in at.sidebar.expander if e.label.startswith("Skipped"))
    listed = "\n".join(t.value for t in skipped.text).splitlines()
    assert [entry.split(":")[0] for entry in listed] == ["a.jsonl", "  line 7", "b.jsonl", "  line 2"]


def test_the_format_choice_speaks_of_the_files_when_there_are_several_and_says_it_reads_them_all(app):
    # It said "Read the file as" above two files, and not whether a format chosen there read one of them or both.
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    at = _upload(app, ("a.jsonl", good[0]), ("b.jsonl", good[2]))
    choice = at.selectbox(key="sidebar.format")
    assert choice.label == "Read the files as" and "A format chosen here reads all 2 files" in choice.help
    choice.set_value("anthropic-messages").run()
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "2 lines: 0 rounds in 0 conversations; 2 lines skipped" in sidebar  # both files were read as it
    at = _upload(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), ("a.jsonl", good[0]))
    assert at.selectbox(key="sidebar.format").label == "Read the file as"


def test_a_failed_call_with_an_empty_body_shows_no_words_as_the_providers_on_its_card(app):
    # ruby-openai's streamed call answered HTTP 500 with no body: the card put "HTTP 500", which Roundtrip wrote, under
    # "The provider said:" as if the provider had said it.
    from lib.failures import EMPTY_BODY

    name = "ruby-openai-stream-500-empty-body.yml"
    at = _upload(app, (name, (FIXTURES / "containers" / name).read_bytes()))
    assert any(e.value.startswith("The call failed: HTTP 500. The provider said:") for e in at.main.error)
    assert EMPTY_BODY in [c.value for c in at.main.caption]
    assert "HTTP 500" not in [c.value for c in at.main.code]


def test_two_files_each_holding_a_conversation_named_sess_1_are_picked_apart_each_under_its_file(app):
    # The picker offered one "sess-1 · 4 rounds", titled "monday.jsonl + tuesday.jsonl · sess-1": Tuesday's run shown
    # after Monday's as if it went on from it.
    pairs = [json.loads(line) for line in (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()]
    def named(lines):
        return b"\n".join(json.dumps({**line, "conversation": "sess-1"}).encode() for line in lines)

    at = _upload(app, ("monday.jsonl", named([pairs[0], pairs[2]])), ("tuesday.jsonl", named([pairs[1], pairs[3]])))
    assert "4 lines: 4 rounds in 2 conversations; 0 lines skipped" in [t.value for t in at.sidebar.text]
    picker = at.selectbox(key="sidebar.conversation")
    assert picker.options == ["sess-1 (monday.jsonl) · 2 rounds", "sess-1 (tuesday.jsonl) · 2 rounds"]
    picker.set_value(1).run()
    assert "tuesday.jsonl · sess-1" in [t.value for t in at.main.text]  # the file said once, in the title
    assert "Weather in Lima?" in " ".join(c.value for c in at.main.code) + " ".join(t.value for t in at.main.text)


def test_a_codex_rollout_cut_in_two_uploaded_second_half_first_opens_as_its_one_run_and_says_so(app):
    # The sidebar said "3 rounds in 2 conversations": the first half's round under its session, the second half's two
    # under a bare "session", their requests without the first half's history.
    lines = (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes().splitlines(keepends=True)
    at = _upload(app, ("part-2.jsonl", b"".join(lines[9:])), ("part-1.jsonl", b"".join(lines[:9])))
    assert ("19 lines: 3 rounds in 1 conversation; 10 lines not model calls; part-2.jsonl read as the rest of "
            "part-1.jsonl's run (one run's file cut in two); 0 lines skipped") in [t.value for t in at.sidebar.text]
    assert at.selectbox(key="sidebar.conversation").options == \
        ["session 019e1625-789d-76c0-80ab-3724b5ddb799 · 3 rounds"]
