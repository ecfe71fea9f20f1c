"""Trace content is untrusted: markup in a trace comes out as text, never as HTML or a remote image."""

from lib.text import md_escape
from tests.hostile import HOSTILE, SCRIPT, UNESCAPED, hostile_trace, markdown_like


def _render_both_rounds(app):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", hostile_trace()).run()
    assert not at.exception
    yield at
    at.button(key="explorer.next").click().run()
    assert not at.exception
    yield at


def test_hostile_markup_is_never_handed_to_markdown_unescaped(app):
    for at in _render_both_rounds(app):
        for value in markdown_like(at):
            assert not UNESCAPED.search(value), value


def test_hostile_markup_is_shown_literally_as_text(app):
    for at in _render_both_rounds(app):
        literal = [e.value for e in at.get("text")] + [e.value for e in at.get("code")]
        assert any(HOSTILE in value for value in literal)
        assert any(SCRIPT in value for value in literal)


def test_md_escape_neutralizes_markdown_and_html():
    escaped = md_escape(HOSTILE)
    assert not UNESCAPED.search(escaped)
    assert escaped.replace("\\", "") == HOSTILE


def _render_workshop_views(app):
    """The hostile trace in both dialects, in predict mode, then every step of presenter mode."""
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", hostile_trace()).run()
    at.radio(key="explorer.view").set_value("Both dialects").run()
    yield at
    at.toggle(key="explorer.predict").set_value(True).run()
    yield at
    at.toggle(key="explorer.predict").set_value(False)
    at.toggle(key="explorer.presenter").set_value(True).run()
    yield at
    while not at.button(key="presenter.next").disabled:
        at.button(key="presenter.next").click().run()
        yield at


def test_hostile_markup_stays_text_in_both_dialects_predict_and_presenter_modes(app):
    steps = 0
    for at in _render_workshop_views(app):
        assert not at.exception
        for value in markdown_like(at):
            assert not UNESCAPED.search(value), value
        steps += 1
    assert steps == 2 + 6  # the two views, then round 1's four steps and round 2's two
    assert any(HOSTILE in e.value for e in at.get("text"))  # the answer, shown literally
