"""Checks: every pitfall found in the current trace, by severity, each with a way to its round."""

from lib.checks import skipped_words, unread_requests
from lib.ui import findings, navigation, plain, predict
from lib.ui.picker import trace_picker

loaded = trace_picker()
plain.title(predict.title(loaded, predict.predicting()), "Checks")
# While predicting, a finding names what the model did in its round and a gallery trace's explanation tells the whole
# story: the page stops before the first round still to predict, as the Tokens page does.
navigation.require_rounds(loaded)
shown = predict.page_rounds(loaded)
whole = shown == len(loaded.trace.rounds)
if whole:
    findings.explanation(loaded)
found = findings.predicted(loaded, shown)
findings.counts(found, unread_requests(loaded.trace), whole, skipped_words(loaded.problems, loaded.skipped))
findings.listing(loaded, found)
