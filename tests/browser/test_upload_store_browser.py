"""What a visitor's browser can make the server keep through Streamlit's upload endpoint, uploader or not."""

from __future__ import annotations

import re

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load_test import free_port, start_app
from lib.ui.upload_limit import VIEWER_BYTES
from tests.browser.conftest import VIEWPORT, Watch, guard

SERVER = {"ROUNDTRIP_DEPLOYMENT": "server", "ROUNDTRIP_EDITORS": "teacher@example.org",
          "ROUNDTRIP_IDENTITY_HEADER": "X-Remote-User"}
"""A room's server: every visitor without the operator's header is a viewer."""

PUT = """async ([session, id, size]) => {
  const cookie = document.cookie.split('; ').find(c => c.startsWith('_streamlit_xsrf='));
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(size)]), id + '.json');
  const answer = await fetch(`/_stcore/upload_file/${session}/${id}`,
    {method: 'PUT', body: form, headers: {'X-Xsrftoken': cookie ? cookie.slice(16) : ''}});
  return answer.status;
}"""
"""What anyone can type in the browser's console: a file sent straight to the upload endpoint, as the uploader does."""


@pytest.fixture(scope="module")
def room(chromium_present, tmp_path_factory):
    port = free_port()
    server = start_app(port, env={**SERVER, "ROUNDTRIP_DATABASE_URL":
                                  f"sqlite:///{tmp_path_factory.mktemp('store') / 'notes.db'}"})
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=30)


def _viewer_session(browser, room):
    """A viewer's page, and the id Streamlit gave its session (the first message on its WebSocket says it)."""
    context = browser.new_context(viewport=VIEWPORT)
    watch = Watch()
    guard(context, watch)
    page = context.new_page()
    found: list[str] = []

    def read(payload) -> None:
        if isinstance(payload, bytes):
            message = ForwardMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "new_session":
                found.append(message.new_session.initialize.session_id)

    page.on("websocket", lambda socket: socket.on("framereceived", read))
    page.goto(room + "/")
    page.get_by_text(re.compile(r"^Round 1: the program sends")).first.wait_for(timeout=120_000)
    page.get_by_text("only editors open their own logs", exact=False).first.wait_for()
    return context, page, found[0]


def test_a_viewer_with_no_uploader_cannot_fill_the_servers_memory_through_the_upload_endpoint(browser, room):
    # Streamlit kept any file PUT for an open session, under any id, until the session ended: a viewer, drawn no
    # log uploader, sent 150 MB after 150 MB from the console (the server grew by 150 MB each, 204 each time).
    context, page, session = _viewer_session(browser, room)
    try:
        assert page.evaluate(PUT, [session, "forged-1", 20 * 1024 * 1024]) == 413
        assert page.evaluate(PUT, [session, "forged-2", VIEWER_BYTES + 1]) == 413
        # A plan file, the one thing a viewer may upload, still goes through; a second one beside it that would
        # pass the session's allowance does not.
        assert page.evaluate(PUT, [session, "plan-1", 50_000]) == 204
        assert page.evaluate(PUT, [session, "plan-2", VIEWER_BYTES - 10_000]) == 413
    finally:
        context.close()
