"""Fork: one round's request edited and sent again, then compared with the trace it came from."""

from lib.ui import fork, navigation, plain
from lib.ui.picker import trace_picker

loaded = trace_picker()
fork.compare_when_asked()
plain.title(loaded.trace.title, "Fork a round")
navigation.require_rounds(loaded)
fork.lessons(loaded)
at = fork.chosen_round(loaded)
edit = fork.editor(loaded, at)
fork.sender(loaded, at, edit)
fork.progress(loaded)
