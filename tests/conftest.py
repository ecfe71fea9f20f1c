"""Shared fixtures: the bundled traces as a user gets them, and the real app under AppTest."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog

ROOT = Path(__file__).resolve().parent.parent


LESSONED = ["hengxin-expense", *(f"{catalog.PITFALLS}/{path.stem}"
                                 for path in sorted((catalog.TRACES_DIR / catalog.PITFALLS).glob("*.jsonl")))]
"""The bundled traces that carry lessons: Hengxin and the pitfall gallery."""


def load_bundled(name: str) -> catalog.LoadedTrace:
    """A bundled trace read exactly as the app reads it."""
    return catalog.load_bytes((catalog.TRACES_DIR / f"{name}.jsonl").read_bytes(), name)


@pytest.fixture
def hengxin():
    """The Hengxin expense trace."""
    loaded = load_bundled("hengxin-expense")
    assert loaded.problems == ()
    return loaded.trace


@pytest.fixture
def order_status():
    """The Anthropic-dialect order status trace."""
    loaded = load_bundled("order-status-anthropic")
    assert loaded.problems == ()
    return loaded.trace


@pytest.fixture
def responses_chain():
    """The Responses API chain of tests/fixtures/openai-responses.jsonl: from round 2 on, the provider holds the
    earlier messages (previous_response_id)."""
    from lib.logs.upload import read_upload

    name = "openai-responses.jsonl"
    return read_upload([(name, (ROOT / "tests" / "fixtures" / name).read_bytes())]).conversations[0].trace


@pytest.fixture
def app():
    """The real app, not yet run; set query params before calling .run()."""
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
