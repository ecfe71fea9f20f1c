"""The recording proxy on 127.0.0.1, seen from a web page on the internet that the operator happens to open."""

from __future__ import annotations

import json

from lib.capture.background import BackgroundProxy
from tests.recorded_server import RecordedServer

EVIL = "https://evil.example/"
"""A page of another site; served by the test itself (Playwright's route), so nothing leaves 127.0.0.1."""


def _form(action: str) -> str:
    """A page that posts a chat call to `action` as soon as it loads: a form, which no CORS preflight stops."""
    name = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "injected by a web page", "x": ""}]})
    name, value = name[:-4], name[-4:]  # text/plain sends name=value: the "=" falls inside the last string
    return (f"<form id=f method=POST enctype=text/plain action='{action}'><input name='{name}' value='{value}'>"
            "</form><script>document.getElementById('f').submit()</script>")


def test_a_page_on_the_internet_cannot_post_a_conversation_into_the_operators_capture(chromium_present, browser,
                                                                                      tmp_path):
    # In Chromium a page of any site submitted this form to the proxy: it was forwarded upstream and written into
    # the capture file the Watch page shows, as the operator's own conversation.
    capture = tmp_path / "capture.jsonl"
    with RecordedServer() as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        context = browser.new_context()
        context.route(EVIL, lambda route: route.fulfill(status=200, content_type="text/html",
                                                        body=_form(proxy.url + "/v1/chat/completions")))
        page = context.new_page()
        page.goto(EVIL)
        page.wait_for_url(proxy.url + "/**")
        assert "refused_web_page" in page.content()
        context.close()
    assert upstream.received == []
    assert not capture.exists() or capture.read_text() == ""
