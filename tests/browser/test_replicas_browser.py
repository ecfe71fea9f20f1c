"""Two replicas of the app on two ports, one PostgreSQL database between them, driven in Chromium.

What a shared server promises: a trace saved through one replica opens by its link through the
other, one deleted through one stops opening through the other at once, and a note written on one
shows on the other. The replicas run as a server deployment
whose operator named the identity header `X-Remote-User`; a header of any other name is ignored.
PostgreSQL comes from ROUNDTRIP_TEST_POSTGRES_URL (tests/databases.py): without a server the tests
skip saying so, except under CI, where they fail.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from bench.load_test import free_port, start_app
from lib import library
from lib.store import open_store
from tests.browser.conftest import VIEWPORT, Watch, guard
from tests.browser.identity_proxy import signed_in
from tests.databases import postgres_schema

from tests.browser.browser_api import expect

SIDEBAR = 'section[data-testid="stSidebar"]'
EDITOR = "ada@example.com"
PAIRS = Path(__file__).parent.parent / "fixtures" / "openai-pairs.jsonl"
"""Three conversations of OpenAI request/response pairs; the first has two rounds."""
WAIT = 60_000
"""Milliseconds to wait for what must appear: a fresh server's first run, a first save on a busy machine."""
SERVER = {"ROUNDTRIP_DEPLOYMENT": "server", "ROUNDTRIP_EDITORS": EDITOR, "ROUNDTRIP_IDENTITY_HEADER": "X-Remote-User"}
"""The operator's settings, the same on both replicas."""


@pytest.fixture(scope="module")
def shared_database(chromium_present):
    yield from postgres_schema()


@pytest.fixture(scope="module")
def replicas(shared_database):
    """Two app servers on two free ports, both on the one database; their base URLs."""
    started = []
    try:
        for _ in range(2):
            port = free_port()
            started.append((start_app(port, env={**SERVER, "ROUNDTRIP_DATABASE_URL": shared_database}), port))
        yield [f"http://127.0.0.1:{port}" for _, port in started]
    finally:
        for server, _ in started:
            server.terminate()
            server.wait(timeout=30)


@pytest.fixture
def visit(browser):
    """Open a fresh browser session on a replica, through a sign-in proxy that adds these headers to every request."""
    contexts, watch = [], Watch()
    with contextlib.ExitStack() as proxies:
        def open_page(base_url: str, headers: dict[str, str] | None = None):
            if headers:
                base_url = proxies.enter_context(signed_in(int(base_url.rsplit(":", 1)[1]), headers))
            context = browser.new_context(viewport=VIEWPORT, base_url=base_url)
            context.set_default_timeout(60_000)
            guard(context, watch)
            contexts.append(context)
            return context.new_page()

        yield open_page
        for context in contexts:
            context.close()
    assert watch.remote == [], f"requests left for other hosts: {watch.remote}"


def _uploaded_and_saved(page) -> str:
    page.goto("/")
    page.locator(f'{SIDEBAR} input[type="file"]').set_input_files(str(PAIRS))
    page.locator(SIDEBAR).get_by_role("button", name="Save to library").click()
    shown = page.locator(f'{SIDEBAR} [data-testid="stCode"]').filter(has_text="?trace=")
    expect(shown).to_be_visible(timeout=WAIT)
    return shown.inner_text().strip().rsplit("?trace=", 1)[1]


def test_a_trace_saved_through_one_replica_opens_by_its_link_through_the_other_with_its_notes(visit, replicas):
    first, second = replicas
    editor = visit(first, {"X-Remote-User": EDITOR})
    trace_id = _uploaded_and_saved(editor)

    learner = visit(second)  # no identity: a viewer
    learner.goto(f"/?trace={trace_id}&round=2")
    expect(learner.get_by_role("heading", name="Round 2: the program sends")).to_be_visible(timeout=WAIT)
    expect(learner.locator(SIDEBAR).get_by_text("Kept in the library; this address is its permanent link.")).to_be_visible(timeout=WAIT)
    expect(learner.locator(f'{SIDEBAR} input[type="file"]')).to_have_count(0)

    editor.goto(f"/annotate?trace={trace_id}&round=2")
    editor.get_by_role("textbox", name="Note").fill("Written through the first replica.")
    editor.get_by_role("button", name="Save the note").click()
    expect(editor.get_by_text("Saved your note on:")).to_be_visible(timeout=WAIT)

    # Each replica reads the notes at most every 10 seconds: reload until the second has read them again.
    for _ in range(8):
        learner.goto(f"/?trace={trace_id}&round=2")
        expect(learner.get_by_role("heading", name="Round 2: the program sends")).to_be_visible(timeout=WAIT)
        if learner.get_by_text("Written through the first replica.").count():
            break
        learner.wait_for_timeout(2_500)
    expect(learner.get_by_text("Written through the first replica.")).to_be_visible(timeout=WAIT)
    expect(learner.get_by_text(EDITOR).first).to_be_visible(timeout=WAIT)  # signed with the identity, not a typed name


def test_a_trace_deleted_through_one_replica_stops_opening_through_the_other_at_once(visit, replicas, shared_database):
    first, second = replicas
    trace_id = _uploaded_and_saved(visit(first, {"X-Remote-User": EDITOR}))
    learner = visit(second)
    learner.goto(f"/?trace={trace_id}&round=2")
    expect(learner.get_by_role("heading", name="Round 2: the program sends")).to_be_visible(timeout=WAIT)  # read and held

    # The first replica's Delete runs library.delete on the shared database; the second replica is not told.
    store = open_store(shared_database)
    assert library.delete(store, trace_id)
    store.close()

    again = visit(second)
    again.goto(f"/?trace={trace_id}&round=2")
    expect(again.get_by_text("The saved trace asked for cannot be opened.")).to_be_visible(timeout=WAIT)
    expect(again.get_by_text("No trace with this id is kept in the library", exact=False)).to_be_visible(timeout=WAIT)


def test_an_identity_header_the_operator_did_not_name_is_ignored(visit, replicas):
    named = visit(replicas[0], {"X-Remote-User": EDITOR})
    named.goto("/")
    expect(named.locator(f'{SIDEBAR} input[type="file"]')).to_have_count(1, timeout=WAIT)

    unnamed = visit(replicas[0], {"X-Forwarded-Email": EDITOR, "X-Forwarded-User": EDITOR, "Remote-User": EDITOR})
    unnamed.goto("/")
    expect(unnamed.locator(SIDEBAR).get_by_text("only editors open their own logs")).to_be_visible(timeout=WAIT)
    expect(unnamed.locator(f'{SIDEBAR} input[type="file"]')).to_have_count(0)
