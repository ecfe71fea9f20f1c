"""Round explorer: step through a trace, request and response side by side, five steps labeled."""

import streamlit as st

from lib.ui import explorer, navigation, predict, presenter, share, slides
from lib.ui.picker import trace_picker

loaded = trace_picker(opens_round=True)
plan = slides.active()  # before the mode switches: a plan's link turns presenter mode on
modes = presenter.modes(on_present=slides.leaving)  # leaving a plan opens the explorer where its slide was
if modes.presenter and plan is not None:
    slides.show(plan, predicting=modes.predict, corner=modes.corner)
    st.stop()
if plan is not None:
    slides.close()  # presenter mode was left: the plan goes with it
if modes.presenter and loaded.trace.rounds:
    presenter.show(loaded, predicting=modes.predict, corner=modes.corner)
    st.stop()
explorer.header(loaded, predicting=modes.predict)
navigation.require_rounds(loaded)


def current_round() -> None:
    index = explorer.navigation(loaded, modes.predict)
    listed = st.container()  # the round list, shown above the round but sent after it: it is the page's largest part
    explorer.round_view(loaded, index, revealed=not modes.predict or predict.revealed(loaded, index))
    if not modes.predict:  # the list holds every response
        with listed:
            explorer.round_list(loaded, index)


# Outside predict mode the round is a fragment: moving between rounds reruns only it, not the overview,
# chart and diagram below. Predict mode needs whole reruns, since a prediction updates the score below.
if modes.predict:
    current_round()
else:
    st.fragment(current_round)()
st.divider()
if modes.predict:
    predict.trace_score(loaded)  # the overview, the picture and the files would give the answers away
else:
    explorer.overview(loaded)
    explorer.sequence_diagram(loaded)
    share.downloads(loaded)
