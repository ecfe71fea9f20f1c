"""Predict mode tells no trace's length: a trace of 4 rounds is one whose model answers in round 4, so while a round is
still to predict no page, label or list says how many rounds it has, nor names it by a title that tells what happens;
and a link's neutral alias of a gallery trace opens the same trace however the gallery grows."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog, library
from lib.store import open_store
from lib.ui import state
from lib.ui.library import HELD_BACK, PREDICT_FILTERS
from tests.conftest import ROOT, load_bundled
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.screen import screen
from tests.test_app_predict_pages import _on, _predicting
from tests.test_app_predict_secrets import _present_predicting, _query
from tests.test_app_predict_words import EMPTY_RESULT, GIVEAWAYS, NEUTRAL, TITLE, workshop  # noqa: F401 - a fixture


def test_the_round_box_reaches_only_the_rounds_predicted_so_far_and_the_next():
    at = _predicting()
    box = at.number_input(key=state.ROUND)
    assert box.label == "Round (1 to 1 so far)" and box.max == 1
    at = _predicting(predicted=2)
    box = at.number_input(key=state.ROUND)
    assert box.value == 3 and box.label == "Round (1 to 3 so far)" and box.max == 3
    at = _predicting(predicted=4)
    assert at.number_input(key=state.ROUND).label == "Round (1 to 4)"


def test_outside_predict_mode_the_round_box_says_how_many_rounds_there_are(app):
    app.query_params.update({"trace": "hengxin-expense", "round": "1"})
    box = app.run().number_input(key=state.ROUND)
    assert box.label == "Round (1 to 4)" and box.max == 4


def test_the_score_does_not_say_how_many_rounds_are_left_to_predict():
    at = _predicting(predicted=1)
    assert [m.help for m in at.metric if m.label == "Your score on this trace"] == ["1 round predicted so far."]
    at = _predicting(predicted=4)
    assert [m.help for m in at.metric if m.label == "Your score on this trace"] == ["4 rounds predicted of 4."]


def test_the_presenters_corner_says_which_round_but_not_of_how_many(app):
    at = _present_predicting(app, 1, 2)
    assert "**round 1**" in screen(at).split("\n") and "of 4" not in screen(at)


def test_a_step_slide_says_which_round_but_not_of_how_many(workshop):  # noqa: F811 - the fixture
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    number = [s.id for s in workshop.slides].index("hengxin-r1s2") + 1
    at.query_params.update({"plan": "hengxin-workshop", "slide": str(number), "mode": "present,predict"})
    at.run()
    assert not at.exception
    assert f"**slide {number} of {len(workshop.slides)} · round 1**" in screen(at).split("\n")


@pytest.fixture
def saved(app_database) -> dict[str, str]:
    """A pitfall trace and Hengxin saved to the library; each one's id by name."""
    store = open_store(app_database)
    found = {name: library.save(store, load_bundled(name).trace, source="upload", author="Ada")
             for name in (EMPTY_RESULT, "hengxin-expense")}
    store.close()
    return found


def _listed(at: AppTest):
    return at.dataframe(key="library.table").value


def test_the_library_in_predict_mode_names_a_trace_still_to_predict_neutrally_and_hides_its_length(saved):
    table = _listed(_on(_predicting(), "pages/library.py"))
    assert sorted(table["title"]) == ["Hengxin expense reimbursement", NEUTRAL]
    assert not [t for t in table["title"] if any(word in t.lower() for word in GIVEAWAYS)]
    assert table["rounds"].isna().all() and table["findings"].isna().all()
    assert set(table["checks"]) == {""} and set(table["tokens (in + out)"]) == {""} and set(table["cost"]) == {""}
    assert HELD_BACK in screen(_on(_predicting(), "pages/library.py"))


def test_the_library_in_predict_mode_lists_a_saved_trace_predicted_to_the_end_as_it_is(saved):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": saved[EMPTY_RESULT], "round": "1", "mode": "predict"})
    at.run()
    rounds = len(load_bundled(EMPTY_RESULT).trace.rounds)
    for index in range(1, rounds + 1):
        at.radio(key=f"predict.{index}.action").set_value("call")
        at.button(key="predict.reveal").click().run()
        if index < rounds:
            at.button(key="explorer.next").click().run()
    table = _listed(_on(at, "pages/library.py")).set_index("title")
    assert table.loc[TITLE, "rounds"] == rounds and table.loc[TITLE, "checks"]
    assert pd.isna(table.loc["Hengxin expense reimbursement", "rounds"])  # still to predict


def test_the_library_out_of_predict_mode_lists_titles_and_rounds(saved):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    table = _listed(_on(at, "pages/library.py"))
    assert sorted(table["title"]) == ["Hengxin expense reimbursement", TITLE]
    assert sorted(table["rounds"]) == sorted(len(load_bundled(n).trace.rounds) for n in saved)


def test_a_gallery_traces_alias_stays_when_a_trace_joins_the_gallery_ahead_of_it(tmp_path, monkeypatch):
    # A shared link `?trace=pitfall-1` must open the trace it opened when it was shared.
    before = {t.alias: t.name for t in catalog.bundled_traces() if t.alias}
    shutil.copytree(catalog.TRACES_DIR, tmp_path / "traces")
    first = tmp_path / "traces" / catalog.PITFALLS / "aaa-a-new-pitfall.jsonl"
    shutil.copy(catalog.TRACES_DIR / catalog.PITFALLS / "wrong-tool-declined.jsonl", first)
    text = first.read_text(encoding="utf-8").replace('"pitfall_number": 6', '"pitfall_number": 7', 1)
    first.write_text(text, encoding="utf-8")
    monkeypatch.setattr(catalog, "TRACES_DIR", tmp_path / "traces")
    after = {t.alias: t.name for t in catalog.bundled_traces() if t.alias}
    assert {alias: after[alias] for alias in before} == before
    assert after["pitfall-7"] == "pitfalls/aaa-a-new-pitfall"


def test_every_gallery_trace_has_its_own_number_and_the_old_links_keep_theirs():
    gallery = {t.name: t for t in catalog.bundled_traces() if t.name.startswith(catalog.PITFALLS)}
    assert gallery[EMPTY_RESULT].alias == "pitfall-1" and gallery[EMPTY_RESULT].neutral == NEUTRAL
    assert gallery["pitfalls/wrong-tool-declined"].alias == "pitfall-6"
    assert len({t.alias for t in gallery.values()}) == len(gallery)


HELD_BACK_1 = "Predict round 1 first: every later request carries what the model does in it, so round 1 is shown."


@pytest.mark.parametrize("asked", ["3", "4", "5", "99"])
def test_a_link_to_a_later_round_says_the_same_whether_or_not_the_trace_has_that_round(app, asked):
    # Hengxin has 4 rounds: "this trace has 4 rounds", or "request 4" for a link to round 99, told the learner so.
    app.query_params.update({"trace": "hengxin-expense", "round": asked, "mode": "predict"})
    at = app.run()
    assert [w.value for w in at.warning] == [HELD_BACK_1]
    assert at.query_params["round"] in ("1", ["1"])


def test_outside_predict_mode_a_link_past_the_end_says_how_many_rounds_there_are(app):
    app.query_params.update({"trace": "hengxin-expense", "round": "99"})
    assert [w.value for w in app.run().warning] == [
        "The link asks for round 99, but this trace has 4 rounds: showing round 4, the last."]


def _counter(at) -> str:
    return next(line for line in screen(at).split("\n") if line.startswith("**Messages sent, round by round:**"))


def test_the_presenters_counter_lists_no_request_past_the_first_round_still_to_predict(app):
    # "2 → 5 → 7 → 9" once round 1 was predicted told the trace's length, and request 3's size: round 2's question.
    at = _present_predicting(app, 1, 2)
    at.button(key="predict.reveal").click().run()
    assert _counter(at) == "**Messages sent, round by round:** :blue-background[**2**] → 5 → …"


def test_the_counter_of_the_last_round_still_to_predict_ends_as_every_other_rounds_does(app):
    # Without its "→ …", the counter told the learner that this round is the last: the one whose model answers.
    at = _present_predicting(app, 1, 2)
    for index in (1, 2, 3):
        at.button(key="predict.reveal").click().run()
        while (_query(at, "round"), _query(at, "step")) != (str(index + 1), "2"):
            at.button(key="presenter.next").click().run()
    assert ":material/help: What will the model do?" in [h.value for h in at.header]
    assert _counter(at).endswith(":blue-background[**9**] → …")


def test_the_library_in_predict_mode_offers_no_filter_sort_or_download_that_would_tell_a_traces_length(saved):
    # Hengxin has 4 rounds, its model answering in round 4: a "Rounds, from 4 to 4" filter or a sort by rounds (or by
    # tokens, which grow with every round) would find or order it by that, though its column is empty.
    at = _on(_predicting(), "pages/library.py")
    labels = [w.label for kind in (at.number_input, at.selectbox, at.text_input) for w in kind]
    assert not [label for label in labels if label.split(",")[0] in ("Rounds", "Tokens", "Cost (USD)")]
    assert not {"rounds", "tokens", "cost", "findings"} & set(at.selectbox(key="library.sort").options)
    assert not [label for label in labels if label in ("Finding", "Severity")]
    assert not at.get("download_button")  # a download lists every trace's rounds
    assert PREDICT_FILTERS in screen(at)
    assert _listed(at)["rounds"].isna().all()
    assert "4" not in " ".join(str(m.value) for m in at.metric)


def test_out_of_predict_mode_the_library_filters_and_sorts_by_rounds(saved):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at = _on(at, "pages/library.py")
    assert "rounds" in at.selectbox(key="library.sort").options
    at.number_input(key="library.rounds_low").set_value(4).run()
    at.number_input(key="library.rounds_high").set_value(4).run()
    assert list(_listed(at)["title"]) == ["Hengxin expense reimbursement"]
    assert PREDICT_FILTERS not in screen(at)


def test_a_sort_by_rounds_chosen_before_predict_mode_came_on_no_longer_orders_the_list(saved):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at = _on(at, "pages/library.py")
    at.selectbox(key="library.sort").set_value("rounds").run()
    at.session_state[state.PREDICT] = True  # the explorer's switch, turned on
    at.run()
    assert not at.exception
    assert at.selectbox(key="library.sort").value == "saved"
    assert _listed(at)["rounds"].isna().all()
