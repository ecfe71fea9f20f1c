"""How the app is served, seen from the server's side of a first load (issue 21)."""

from __future__ import annotations

import re
from pathlib import Path

from bench.load_test import free_port, start_app
from tests.browser.conftest import VIEWPORT, Watch, guard


def _file_watches(pid: int) -> int:
    """The inotify watches the process holds, read from /proc (one `inotify wd:` line per watched path)."""
    count = 0
    for info in Path(f"/proc/{pid}/fdinfo").iterdir():
        try:
            count += sum(line.startswith("inotify wd:") for line in info.read_text().splitlines())
        except OSError:  # a descriptor closed while we read
            continue
    return count


def test_a_visitor_s_session_sets_the_server_watching_no_source_file(chromium_present, browser, tmp_path):
    # Streamlit's source watcher, on by default, set up watches for each new session and resolved the path of every
    # loaded module after each run, on the server's event loop: about 0.3 s per first load during which the page's
    # code files waited (25 watches after one visit). A served app's code does not change under it.
    port = free_port()
    server = start_app(port, env={"ROUNDTRIP_DATABASE_URL": f"sqlite:///{tmp_path / 'notes.db'}"})
    try:
        watch = Watch()
        context = browser.new_context(viewport=VIEWPORT)
        guard(context, watch)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_text(re.compile(r"^Round 1: the program sends")).first.wait_for(timeout=120_000)
        context.close()
        assert _file_watches(server.pid) == 0
        assert watch.remote == []
    finally:
        server.terminate()
        server.wait(timeout=30)
