"""The README's screenshots: `make test` leaves docs/ alone; only `make screenshots` may rewrite them."""

from __future__ import annotations

import pytest

from tests.browser import conftest
from tests.browser.conftest import screenshot


@pytest.fixture
def shots(tmp_path, monkeypatch):
    """The README's screenshot folder and the test output, both in a folder of this test's own."""
    monkeypatch.setattr(conftest, "README_SHOTS", tmp_path / "docs" / "screenshots")
    monkeypatch.setattr(conftest, "OUTPUT", tmp_path / "output")
    return tmp_path


@pytest.fixture
def drawn(browser):
    opened = browser.new_page(viewport=conftest.VIEWPORT)
    opened.set_content("<h1>Round 2: the model asks for queryExpense</h1>")
    yield opened
    opened.close()


def test_a_readme_screenshot_is_kept_under_the_test_output_and_docs_is_left_alone(shots, drawn, monkeypatch):
    monkeypatch.delenv("ROUNDTRIP_WRITE_SCREENSHOTS", raising=False)
    path = screenshot(drawn, "explorer", readme=True)
    assert path == shots / "output" / "explorer.png" and path.stat().st_size > 0
    assert not (shots / "docs").exists()


def test_make_screenshots_copies_a_readme_screenshot_into_docs(shots, drawn, monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_WRITE_SCREENSHOTS", "1")
    path = screenshot(drawn, "explorer", readme=True)
    assert (shots / "docs" / "screenshots" / "explorer.png").read_bytes() == path.read_bytes()


SWITCHES = ("<div style='font: 14px sans-serif; padding: 16px'><label><input type=checkbox checked> {present}</label>"
            "<label style='margin-left: 120px'><input type=checkbox> {predict}</label></div>")


def _kept_after_a_redraw(browser, monkeypatch, first: str, then: str) -> bool:
    """Whether `make screenshots` replaces a README screenshot of `first` with one of `then`."""
    monkeypatch.setenv("ROUNDTRIP_WRITE_SCREENSHOTS", "1")
    opened = browser.new_page(viewport=conftest.VIEWPORT)
    try:
        opened.set_content(first)
        kept = screenshot(opened, "presenter", readme=True).read_bytes()
        opened.set_content(then)
        redrawn = screenshot(opened, "presenter", readme=True).read_bytes()
    finally:
        opened.close()
    return (conftest.README_SHOTS / "presenter.png").read_bytes() == redrawn != kept


def test_make_screenshots_replaces_a_screenshot_whose_switch_labels_were_renamed(shots, browser, monkeypatch):
    # The README kept "Presenter mode" and "Predict mode" after the switches became "Present" and "Predict":
    # two words on a 1280x900 page are fewer pixels than the share that chart antialiasing may move.
    before = SWITCHES.format(present="Presenter mode", predict="Predict mode")
    after = SWITCHES.format(present="Present", predict="Predict")
    assert _kept_after_a_redraw(browser, monkeypatch, before, after)


def test_make_screenshots_keeps_a_screenshot_when_only_a_faint_edge_moved(shots, browser, monkeypatch):
    line = "<div style='margin: 40px; width: 600px; height: 1px; background: {colour}'></div>"
    assert not _kept_after_a_redraw(browser, monkeypatch, line.format(colour="#e0e0e0"), line.format(colour="#e8e8e8"))
