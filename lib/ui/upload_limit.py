"""What one session may keep in Streamlit's upload store, checked when a file arrives.

Streamlit's upload endpoint (`PUT /_stcore/upload_file/<session>/<file id>`) keeps any file sent for an open
session, under any file id, whether or not the page drew an uploader, until the session ends. So a viewer, who is
drawn no log uploader, could still send file after file of up to `server.maxUploadSize` from the browser's console
and fill the server's memory. A viewer's only uploader is the Workshop plan page's plan file: a session that may
not upload logs keeps at most one plan file's worth (VIEWER_BYTES), and a file past that is refused (413) before
it is stored. Editors, who upload logs, keep what Streamlit's own limit allows.
"""

from __future__ import annotations

import threading

from starlette.exceptions import HTTPException

from lib import workshop_plan
from lib.ui import access as ui_access

VIEWER_BYTES = 4 * workshop_plan.FILE_LIMIT
"""Bytes a session that may not upload logs may hold: the longest plan file, every character in 4 UTF-8 bytes."""
TOO_MUCH = (f"This session may keep at most {VIEWER_BYTES:,} bytes of uploads (a workshop plan file); only editors "
            "open their own logs.")
"""The refusal's words, for whoever sent the file."""

_EDITS: dict[str, bool] = {}
"""Whether each session seen may upload logs, by Streamlit's session id; a session not seen yet may not."""
_LOCK = threading.Lock()


def note_session(edits: bool) -> None:
    """Say whether the session running now may upload logs; puts the check in place on the first call."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    if context is None or not Runtime.exists():  # AppTest runs no upload endpoint
        return
    runtime = Runtime.instance()
    with _LOCK:
        for gone in [s for s in _EDITS if not runtime.is_active_session(s)]:
            del _EDITS[gone]
        _EDITS[context.session_id] = edits
    _install(runtime.uploaded_file_mgr)


def _install(manager) -> None:
    if getattr(manager, "_roundtrip_limited", False):
        return
    store = manager.add_file

    def add_file(session_id: str, file) -> None:
        if not _EDITS.get(session_id, False):
            held = manager.file_storage.get(session_id, {})
            kept = sum(len(f.data) for f_id, f in list(held.items()) if f_id != file.file_id)
            if kept + len(file.data) > VIEWER_BYTES:
                raise HTTPException(status_code=413, detail=TOO_MUCH)
        store(session_id=session_id, file=file)

    manager.add_file = add_file
    manager._roundtrip_limited = True


def limit_uploads() -> None:
    """For app.py, every run: this visitor's role decides what their session may keep."""
    note_session(ui_access.visitor().edits)

