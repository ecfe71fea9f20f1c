"""Damaged real recordings uploaded through the real app: the explorer (every round, as cards and in both
dialects), the Tokens page and the Checks page show what loaded, and never an exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from lib.ui import explorer, state
from tests.damage import DOCUMENT_FIXTURES, FIXTURES, HOSTILE_VALUES, LINE_FIXTURES, damaged, opened, paths
from tests.screen import screen

ROOT = Path(__file__).resolve().parent.parent
ROUNDS_WALKED = 6
"""Rounds of each conversation opened one by one (the fixtures' longest conversations fit)."""


def _walk(at: AppTest, upload_name: str, data: bytes) -> None:
    """Upload `data` and open every page and round a user would, asserting that none shows an exception."""
    uploader = at.file_uploader(key="sidebar.upload")
    uploader.clear()
    uploader.upload(upload_name, data)
    at.switch_page("pages/explorer.py").run()
    assert not at.exception, at.exception
    for page in ("pages/overview.py", "pages/checks.py", "pages/explorer.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
    rounds = at.number_input(key=state.ROUND) if any(n.key == state.ROUND for n in at.number_input) else None
    if rounds is None:
        return  # no readable rounds: the page says so (tests/test_app_upload.py)
    for view in (explorer.CARDS, explorer.DIALECTS):
        at.radio(key=state.VIEW).set_value(view).run()
        for index in range(1, min(int(rounds.max), ROUNDS_WALKED) + 1):
            at.number_input(key=state.ROUND).set_value(index).run()
            assert not at.exception, (view, index, at.exception)
    at.radio(key=state.VIEW).set_value(explorer.CARDS).run()


@pytest.fixture(scope="module")
def app_at() -> AppTest:
    """One app for the module: uploads replace each other, as they do for a user who opens file after file."""
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()


@pytest.mark.parametrize("fixture", LINE_FIXTURES + DOCUMENT_FIXTURES)
def test_a_damaged_recording_opens_on_every_page_and_round_without_an_exception(app_at, fixture):
    recording = opened(fixture)

    @settings(max_examples=4, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
    @given(st.sampled_from(list(paths(recording.values))), HOSTILE_VALUES)
    def open_damaged(path, value):
        _walk(app_at, recording.name, damaged(recording, path, value))

    open_damaged()


def test_a_token_count_too_large_for_a_table_opens_the_explorer_and_tokens_pages(app_at):
    recording = opened("ollama-chat.jsonl")
    _walk(app_at, recording.name, damaged(recording, (0, "response", "prompt_eval_count"), 2 ** 70))


def test_an_eval_with_one_damaged_sample_names_it_in_the_sidebar_and_opens_the_other(app_at):
    data = (FIXTURES / "containers" / "inspect-arithmetic-with-tool.eval").read_bytes()
    _walk(app_at, "arithmetic.eval", data[:1359] + b"\x00" + data[1360:])  # inside sample 1's deflated bytes
    sidebar = "\n".join(t.value for t in app_at.sidebar.text)
    assert "2 samples: 2 rounds in 1 conversation; 1 sample skipped" in sidebar
    assert "sample 1: samples/1_epoch_1.json (sample 1) is damaged: its compressed data does not inflate" in sidebar
    assert app_at.selectbox(key="sidebar.conversation").options == ["sample 2 epoch 1 · 2 rounds"]
    assert "arithmetic.eval · sample 2 epoch 1" in screen(app_at)  # the conversation's title, as text
    assert any(s.value.startswith("Round 2: the program sends") for s in app_at.subheader)


def test_a_lost_round_line_takes_its_lessons_with_it_and_the_others_stay_on_their_own_rounds(app):
    # Hengxin with round 2's line cut off mid-write: the file's rounds 3 and 4 are read as rounds 2 and 3, and so are
    # their lessons. The lessons written for round 2 (the calcAmountOver call) are not put on the round that now
    # stands second (the createExpenseSupplement call): they are skipped, and the sidebar says why.
    lines = (ROOT / "traces" / "hengxin-expense.jsonl").read_bytes().split(b"\n")
    lines[2] = lines[2][:200]
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hengxin.jsonl", b"\n".join(lines))
    at.run()
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    shown = screen(at)
    assert "createExpenseSupplement" in shown
    assert "The model does no arithmetic" not in shown
    assert "A write tool: a person approves before it runs" in shown
    sidebar = "\n".join(t.value for t in at.sidebar.text)
    assert "line 11: is a lesson for round 2, but no round line read has index 2; skipped" in sidebar
    assert "line 14: is a lesson for round 4" not in sidebar  # the file's round 4, read as round 3, keeps its lessons
