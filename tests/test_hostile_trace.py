"""Trace content is untrusted: every string of it reaches the page only as text, in every view.

The hostile trace (tests/hostile.py) puts a script, an image, a remote markdown image, a link, a
bare URL, raw HTML, a meta refresh and a bidi control in every string field of the native format.
Walking every page and view with it, no element that Streamlit renders as markdown (markdown,
captions, headings, alerts, expander, tab, metric and widget labels, tooltips, radio options) may
carry any piece of it, escaped or not: it must come out through st.text, st.code, st.json or a
dataframe, which make no markup of it.
"""

import json

import pytest

from lib import library
from lib.logs.upload import read_upload
from lib.store import open_store

from lib.steps import TEXT_COMMAND_WORDS
from lib.text import show_controls
from tests.hostile import COMMAND, SCRIPT, SHOWN, hostile_trace, markdown_leaks
from tests.synthetic import synthetic_log

EXPLORER, ANNOTATE, CHECKS, TOKENS = "pages/explorer.py", "pages/annotate.py", "pages/checks.py", "pages/overview.py"


@pytest.fixture
def notes_url(tmp_path, monkeypatch) -> str:
    """A notes database of this test's own, so the trace's annotation line can be imported and shown."""
    url = f"sqlite:///{tmp_path / 'notes.db'}"
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", url)
    return url


def _every_view(app):
    """The hostile trace opened, its note imported, then every page and view, each named."""
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", hostile_trace(written=True)).run()
    yield "explorer, round 1", at
    at.switch_page(ANNOTATE).run()
    yield "annotate, before the import", at
    at.button(key="annotate.import").click().run()
    assert [s.value for s in at.success] == ["Imported 1 note."]
    yield "annotate, with the note", at
    at.switch_page(EXPLORER).run()
    for index in (1, 2, 3, 4):
        at.number_input(key="explorer.round").set_value(index).run()
        for view in ("Cards", "Raw JSON", "Both dialects"):
            at.radio(key="explorer.view").set_value(view).run()
            yield f"explorer, round {index}, {view}", at
    at.radio(key="explorer.view").set_value("Cards")
    at.number_input(key="explorer.round").set_value(1)
    at.toggle(key="explorer.predict").set_value(True).run()
    yield "predict mode, before predicting", at
    at.button(key="predict.reveal").click().run()
    yield "predict mode, revealed", at
    for index in (2, 3):  # on to round 3, whose command is written in its text, scored as the call intent it is
        at.button(key="explorer.next").click().run()
        at.button(key="predict.reveal").click().run()
    yield "predict mode, round 3 revealed", at
    at.toggle(key="explorer.predict").set_value(False)
    at.number_input(key="explorer.round").set_value(1)
    at.toggle(key="explorer.presenter").set_value(True).run()
    yield "presenter, round 1 step 1", at
    while not at.button(key="presenter.next").disabled:
        at.button(key="presenter.next").click().run()
        yield f"presenter, round {at.session_state['explorer.round']} step {at.session_state['presenter.step']}", at
    at.toggle(key="explorer.presenter").set_value(False).run()
    for page in (TOKENS, CHECKS):
        at.switch_page(page).run()
        yield page, at


def test_no_piece_of_a_hostile_trace_reaches_markdown_in_any_view(app, notes_url):
    walked = []
    for where, at in _every_view(app):
        assert not at.exception, where
        assert markdown_leaks(at) == [], where
        walked.append(where)
    presenter = [where for where in walked if where.startswith("presenter")]
    assert presenter == ["presenter, round 1 step 1", "presenter, round 1 step 2", "presenter, round 1 step 3",
                         "presenter, round 1 step 4", "presenter, round 2 step 1", "presenter, round 2 step 5",
                         "presenter, round 3 step 1", "presenter, round 3 step 2", "presenter, round 3 step 3",
                         "presenter, round 3 step 4", "presenter, round 4 step 1", "presenter, round 4 step 2"]
    assert walked[-2:] == [TOKENS, CHECKS] and len(walked) == 3 + 12 + 3 + 12 + 2


def test_a_command_written_in_the_text_is_shown_as_text_its_bidi_control_written_out(app, notes_url):
    # Round 3 writes a command named with a script, a remote image and a right-to-left override in its text: its step
    # labels, the slides and predict mode's score name it, each as text.
    named = {}
    for where, at in _every_view(app):
        named[where] = [v for v in [e.value for e in at.get("text")] + [e.value for e in at.get("code")]
                        if show_controls(COMMAND) in v]
        assert not markdown_leaks(at), where
    assert f"{show_controls(COMMAND)}: {TEXT_COMMAND_WORDS} · choices[0].message.content" in \
        named["explorer, round 3, Cards"]
    assert any(v.startswith(f"{show_controls(COMMAND)}: the program read the command out of the text and ran it")
               for v in named["explorer, round 3, Cards"])
    assert any(v.startswith(f"result of the command {show_controls(COMMAND)}, written in the text of round 3's answer")
               for v in named["explorer, round 4, Cards"])
    assert any(f"it wrote the command {show_controls(COMMAND)} in its text" in v
               for v in named["predict mode, round 3 revealed"])
    for step in (2, 3, 4):
        assert named[f"presenter, round 3 step {step}"], step


def test_a_log_that_ends_on_a_command_written_in_the_text_keeps_its_name_out_of_markdown(app, notes_url):
    # Where no request follows the command, the round's end under its cards and presenter mode's step 3 said what is
    # known of it with its name inside, drawn as markdown: the name's script and remote image reached the page.
    lines = hostile_trace(written=True).splitlines(keepends=True)
    ended = b"".join(line for line in lines if b'"index": 4' not in line and b'"index":4' not in line)
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("ended.jsonl", ended).run()
    at.number_input(key="explorer.round").set_value(3).run()
    assert not at.exception and markdown_leaks(at) == []
    at.toggle(key="explorer.presenter").set_value(True).run()
    seen = 0
    while not at.button(key="presenter.next").disabled:
        at.button(key="presenter.next").click().run()
        assert not at.exception and markdown_leaks(at) == [], at.session_state["presenter.step"]
        seen += 1
    assert at.session_state["explorer.round"] == 3 and seen >= 2


def test_a_hostile_failed_try_is_listed_as_text_with_its_body_when_and_message(app, notes_url):
    # Round 1's request was refused three times before its answer: each try's time and body (JSON, text, or the log's
    # message where none was kept) is the trace's own, shown as text, as the HTML file shows it.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", hostile_trace(written=True)).run()
    assert not at.exception and markdown_leaks(at) == []
    assert "Failed tries as the log kept them: 3" in [e.label for e in at.expander]
    said = [c.value for c in at.main.caption]
    assert [f"Try {n} of 4 failed: HTTP {s}." in said for n, s in ((1, 429), (2, 503), (3, 502))] == [True] * 3
    shown = [t.value for t in at.get("text")]
    assert shown.count(f"Sent at {SHOWN}") == 2 and shown.count(SHOWN) >= 2
    # The JSON body holds a bidi control: written out as JSON text.
    assert any(f'"type": "{SHOWN.replace(chr(34), chr(92) + chr(34))}"' in c.value for c in at.get("code"))


def test_hostile_markup_is_shown_literally_as_text_and_bidi_controls_written_out(app, notes_url):
    for where, at in _every_view(app):
        literal = [e.value for e in at.get("text")] + [e.value for e in at.get("code")]
        assert any(SCRIPT in value for value in literal), where
        assert not [value for value in literal if "\u202e" in value], where
    assert any(SHOWN in value for value in literal)



def test_a_trace_whose_strings_are_thousands_of_brackets_deep_opens_in_every_view_without_an_error(app):
    """A string that parses as JSON nested past Python's recursion limit (a tool result, an argument) is shown as
    the text it is: reading it as JSON to pick a code block's language, or to tell an empty result, raised."""
    deep = "[" * 3000 + "]" * 3000
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("deep.jsonl", hostile_trace(deep)).run()
    for index in (1, 2, 3):
        at.number_input(key="explorer.round").set_value(index).run()
        assert not at.exception, index
    assert any(deep in t.value for t in at.text)
    for page in (TOKENS, CHECKS):
        at.switch_page(page).run()
        assert not at.exception, page


DEEP_LEVELS = 1000


def deeply_nested_trace() -> bytes:
    """The three-round trace with a metadata value in round 1's request and an execution's overrides each nested
    a thousand levels deep: orjson reads up to 1,024 levels, Python's recursive code runs out long before."""
    deep = "[" * DEEP_LEVELS + '"bottom"' + "]" * DEEP_LEVELS
    lines = hostile_trace("plain words").decode().splitlines()
    round_1 = lines[1].replace('"request": {', '"request": {"metadata": {"tree": __DEEP__}, ', 1)
    round_1 = round_1.replace('"overrides": {"q": "plain words"}', '"overrides": {"q": __DEEP__}')
    lines[1] = round_1.replace("__DEEP__", deep)
    return "\n".join(lines).encode()


def _everything_said(at) -> str:
    return " ".join(str(e.value) for kind in ("warning", "caption", "markdown", "info", "text", "code", "json", "dataframe")
                    for e in at.get(kind))


def test_a_trace_with_values_a_thousand_levels_deep_opens_in_every_view_annotate_and_fork_and_says_so(app):
    """A value nested past what Python's recursive code reads (json, copying, fingerprints, Streamlit's own) is
    kept, below a fixed depth, as its JSON text: every view shows it without an error and the upload says so."""
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("deep.jsonl", deeply_nested_trace()).run()
    assert not at.exception
    said = _everything_said(at)
    for index in (1, 2, 3):
        at.number_input(key="explorer.round").set_value(index).run()
        for view in ("Cards", "Raw JSON", "Both dialects"):
            at.radio(key="explorer.view").set_value(view).run()
            assert not at.exception, (index, view)
            said += _everything_said(at)
    for page in (ANNOTATE, "pages/fork.py", TOKENS, CHECKS):
        at.switch_page(page).run()
        assert not at.exception, page
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(1).run()
    assert not at.exception
    assert "line 2: has request.metadata.tree nested more than 200 levels deep; shown as text" in said
    assert "line 2: has executions[0].overrides.q nested more than 200 levels deep; shown as text" in said
    assert "bottom" in said  # the deep value's innermost string, in the text kept of it


def test_a_provider_log_with_a_value_a_thousand_levels_deep_opens_in_every_view_and_fork_and_says_so(app):
    """The same rule for a log of requests and responses (an OpenAI Chat Completions log), read by the importers."""
    deep = b"[" * DEEP_LEVELS + b'"bottom"' + b"]" * DEEP_LEVELS
    lines = synthetic_log(1, 3).splitlines()
    lines[0] = lines[0].replace(b'{"request": {', b'{"request": {"metadata": {"tree": ' + deep + b"}, ", 1)
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("deep.jsonl", b"\n".join(lines)).run()
    said = _everything_said(at)
    for view in ("Cards", "Raw JSON", "Both dialects"):
        at.radio(key="explorer.view").set_value(view).run()
        assert not at.exception, view
        said += _everything_said(at)
    for page in (ANNOTATE, "pages/fork.py"):
        at.switch_page(page).run()
        assert not at.exception, page
    assert "line 1: has request.metadata.tree nested more than 200 levels deep; shown as text" in said
    assert "bottom" in said


def _raw_bidi_in_tables(at) -> list[str]:
    """Every table cell or column name on the page that carries a bidi control as it is, not written out."""
    found = []
    for table in at.get("dataframe") + at.get("arrow_data_frame"):
        frame = table.value
        cells = [str(c) for c in frame.columns] + [v for column in frame.columns for v in frame[column].tolist()]
        found += [cell for cell in cells if isinstance(cell, str) and "\u202e" in cell]
    return found


def _raw_bidi_in_options(at) -> list[str]:
    """Every option of a list on the page that carries a bidi control as it is."""
    return [option for kind in ("selectbox", "multiselect") for widget in at.get(kind) for option in widget.options
            if "\u202e" in str(option)]


def test_no_list_of_choices_in_any_view_shows_a_bidi_control_as_it_is(app, notes_url):
    # The sidebar's trace list, the notes' targets, a note chosen to edit: options are drawn as they are, too.
    for where, at in _every_view(app):
        assert _raw_bidi_in_options(at) == [], where
    at.switch_page("pages/compare.py").run()
    assert _raw_bidi_in_options(at) == [], "compare"


def test_no_table_in_any_view_shows_a_bidi_control_as_it_is(app, notes_url):
    # Tables draw their cells as they are: a title "Refund approved \u202egnp.exe" read "Refund approved exe.png" in
    # the Library, for every visitor.
    for where, at in _every_view(app):
        assert _raw_bidi_in_tables(at) == [], where
    at.switch_page("pages/compare.py").run()
    summary = next(t.value for t in at.get("dataframe") if "name" in t.value.columns)
    assert summary["name"].str.contains("[U+202E]", regex=False).any()  # the upload's title, written out
    assert _raw_bidi_in_tables(at) == [], "compare"
    store = open_store(notes_url)
    library.save(store, read_upload([("hostile.jsonl", hostile_trace())]).conversations[0].trace, source="upload")
    store.close()
    at.switch_page("pages/library.py").run()
    assert at.dataframe(key="library.table").value["title"].str.contains("[U+202E]", regex=False).all()
    assert _raw_bidi_in_tables(at) == [], "library"


def test_the_raw_json_view_shows_a_bidi_control_written_out(app, notes_url):
    # st.json drew the body's strings as they are: a \u202e in a message reversed the rest of its line.
    seen = 0
    for where, at in _every_view(app):
        # st.json's body travels as JSON text, a control escaped in it: read back as the browser reads it.
        shown = [str(c.value) for c in at.get("code")]
        shown += [json.dumps(json.loads(j.value), ensure_ascii=False) for j in at.get("json")]
        assert not [value for value in shown if "\u202e" in value], where
        seen += sum("[U+202E]" in value for value in shown)
    assert seen
