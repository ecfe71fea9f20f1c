"""The round navigator's own JavaScript: trace text reaches the page only through textContent, and the navigator
loads nothing. (tests/browser/test_round_navigator_browser.py shows it in Chromium with a hostile trace.)"""

from __future__ import annotations

from pathlib import Path

import lib.ui

SCRIPT = Path(lib.ui.__file__).parent / "round_navigator.js"
MARKUP_SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "createContextualFragment",
                "DOMParser", "srcdoc", "setAttribute(\"on", "eval(", "Function(")
"""Ways a string becomes markup or code."""
LOADS = ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "EventSource", "sendBeacon", ".src", "href", "url(")
"""Ways a page reaches for something else."""


def test_the_navigator_makes_no_markup_of_a_string():
    source = SCRIPT.read_text(encoding="utf-8")
    assert [sink for sink in MARKUP_SINKS if sink in source] == []
    assert "textContent" in source


def test_the_navigator_loads_nothing():
    source = SCRIPT.read_text(encoding="utf-8") + (SCRIPT.with_suffix(".css")).read_text(encoding="utf-8")
    assert [load for load in LOADS if load in source] == []
