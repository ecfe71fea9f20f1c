"""What a user reads in the app's main area, in page order: our words (markdown) and the trace's (text)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

READ = ("markdown", "text", "caption")
"""The element kinds that hold lines a user reads."""
ALERTS = ("success", "info", "warning", "error")
"""The alert boxes: our words, each followed by the untrusted details it is about, as text."""


def lines(at, kinds: tuple[str, ...] = READ) -> list[str]:
    """Every element of these kinds in the main area, top to bottom (backslash escapes dropped)."""
    found = []

    def walk(node) -> None:
        if getattr(node, "type", None) in kinds and isinstance(getattr(node, "value", None), str):
            found.append(node.value.replace("\\", ""))
        for key in sorted(getattr(node, "children", {})):
            walk(node.children[key])

    walk(at.main)
    return found


def screen(at) -> str:
    """The main area's lines joined, one per line."""
    return "\n".join(lines(at))


@dataclass(frozen=True)
class Figure:
    """One token figure of the explorer's round, as a user reads it."""

    label: str
    """Its name: `Input tokens (reported)`."""
    value: str
    """The number as shown, with its ≈ when estimated, or `not known`."""
    delta: str
    """How it compares, `+15 vs reported`; empty when nothing is said."""
    help: str
    """Its explanation, in the tooltip."""


_FIGURE = re.compile(r"^(?P<label>[^:*]+): \*\*(?P<value>[^*]+)\*\*(?: \((?P<delta>[^)]*)\))?$")


def figures(at) -> dict[str, Figure]:
    """The round's token figures in the main area, by name: the captions written `name: **number**`."""
    found = ((_FIGURE.match(c.value), c.proto.help) for c in at.main.caption)
    return {m["label"]: Figure(m["label"], m["value"], m["delta"] or "", why) for m, why in found if m}


FIXTURES = Path(__file__).parent / "fixtures"
"""The recorded logs the importers are tested on (tests/fixtures/README.md says where each comes from)."""


def uploaded(app, fixture: str):
    """The app run with tests/fixtures/`fixture` opened through the sidebar's uploader, as a user opens a log."""
    at = app.run()
    path = FIXTURES / fixture
    at.file_uploader(key="sidebar.upload").upload(path.name, path.read_bytes())
    at.run()
    assert not at.exception
    return at


def round_shown(app, fixture: str, k: int, kinds: tuple[str, ...] = READ) -> str:
    """What the explorer shows of round `k` of tests/fixtures/`fixture`, opened through the sidebar's uploader, in
    elements of `kinds`."""
    from lib.ui import state
    at = uploaded(app, fixture)
    at.number_input(key=state.ROUND).set_value(k).run()
    assert not at.exception
    return "\n".join(lines(at, kinds))
