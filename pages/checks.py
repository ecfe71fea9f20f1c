"""Checks: every pitfall found in the current trace, by severity, each with a way to its round."""

from lib.checks import unread_requests
from lib.ui import findings, navigation, plain
from lib.ui.picker import trace_picker

loaded = trace_picker()
plain.title(loaded.trace.title, "Checks")
findings.explanation(loaded)
navigation.require_rounds(loaded)
found = findings.findings(loaded)
findings.counts(found, unread_requests(loaded.trace))
findings.listing(loaded, found)
