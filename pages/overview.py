"""Tokens and cost: where every round's input goes, how the snowball grows, what it cost."""

import streamlit as st

from lib.dialects import DIALECTS
from lib.summary import billing_unknown_rounds_words, no_chart_words, round_cost_left_out_words, rows_cost, snowball
from lib.ui import accounting, charts, navigation, plain, predict, state
from lib.ui.picker import trace_picker
from lib.prices import cost_figure, cost_notes
from lib.spreadsheet import table_csv
from lib.text import as_sentence

loaded = trace_picker()
plain.title(predict.title(loaded, predict.predicting()), "Tokens and cost")
navigation.require_rounds(loaded)
counting = state.counting(loaded)
accounting.counting_notice(counting)
rows = state.summaries(loaded)
# While predicting, the table and charts stop before the first round still to predict: each row says how many tools
# its round called and why it stopped, and each later request's size counts that round's answer.
shown = predict.page_rounds(loaded)
if shown < len(rows):
    rows = rows[:shown]

st.caption(
    "Every round sends the whole conversation again, plus the tool list. So each call costs more than "
    "the one before, and the conversation as a whole costs far more than its final context would alone."
)
ball = snowball(rows)
accounting.snowball_metrics(ball, shown if shown < len(loaded.trace.rounds) else None)
accounting.log_notes(loaded.notes)

with st.expander("Prices (US$ per million tokens): edit to match your contract"):
    st.caption("Your edits last for this session and price every cost you see in it: this page and Compare. The "
               "Library keeps each saved trace's cost at the default prices, the same for every visitor.")
    prices = accounting.price_editor()
table = accounting.rounds_table(rows, prices, DIALECTS[loaded.trace.dialect].FINISH_FIELD)
spent = rows_cost(rows, prices)
if spent.unpriced:
    st.info("No price for these models: add a row to the price table to see their cost.")
    plain.text(", ".join(spent.unpriced))
st.metric("Cost of the whole trace" if len(rows) == len(loaded.trace.rounds) else "Cost of the rounds predicted so far",
          cost_figure(spent))
if cost_notes(spent):  # beneath the figure, not in it: the browser cuts a long value short
    st.caption(as_sentence(cost_notes(spent)))

st.subheader("Rounds")
st.dataframe(plain.cells(table), hide_index=True, width="stretch", key="overview.rounds", placeholder="–",
             column_config=accounting.rounds_columns(table))
if left_out := round_cost_left_out_words(rows, prices):  # beneath the cells it is about, not the total alone
    st.caption(left_out)
accounting.gap_notes(loaded.trace, rows)
accounting.output_left_out_note(rows)
accounting.overcount_note(rows)
accounting.counted_against_notes(rows)
st.download_button("Download the table as CSV", table_csv(table).encode(), file_name="rounds.csv",
                   mime="text/csv", key="overview.csv")

st.subheader("Where each round's input goes")
no_chart = no_chart_words(rows)
if no_chart:
    st.caption(no_chart)
else:
    st.plotly_chart(charts.input_breakdown(rows), key="overview.breakdown")
    accounting.breakdown_caption(counting, rows)
left, right = st.columns(2)
with left:
    st.markdown("**Messages per round**")
    if no_chart:
        st.caption(no_chart)
    else:
        st.plotly_chart(charts.messages_per_round(rows), key="overview.messages")
with right:
    st.markdown("**Tokens per round**")
    st.plotly_chart(charts.tokens_per_round(rows), key="overview.tokens")
st.markdown("**Input billed so far, against one call with the same context**")
if ball.one_round_words:  # one round: a lone dot on a 0 to 1 axis, so the figures in words instead
    st.caption(ball.one_round_words)
else:
    st.plotly_chart(charts.cumulative_input(rows), key="overview.cumulative")
if billing_unknown_rounds_words(rows):
    st.caption(billing_unknown_rounds_words(rows))
