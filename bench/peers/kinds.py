"""Which JavaScript each element kind makes a first load fetch on top of a bare Streamlit page.

Serves bench/peers/kind_page.py once and opens `?kind=K` for each kind in a fresh Chromium context, waiting for the
page to settle as bench.peers does; prints, per kind, the script files fetched that the bare page (one st.text)
does not fetch, with their decoded sizes: the code each kind adds to a first load, served by the same server process
that runs the script (bench/README.md, "The first screen's element kinds", has the table for the explorer).

    .venv/bin/python -m bench.peers.kinds [KIND ...]     (all kinds when none is named)
"""

from __future__ import annotations

import sys
import urllib.parse
from dataclasses import replace

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_app
from bench.peers.floor import _scripts, bare_viewer
from bench.peers.kind_page import KINDS
from bench.peers.viewers import open_settled

PAGE = "bench/peers/kind_page.py"


def main(kinds: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = start_app(port, script=PAGE)
    fetched: dict[str, dict[str, int]] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            base = bare_viewer("kind", port)
            for kind in ["text", *kinds]:
                viewer = replace(base, url=f"{base.url}?kind={urllib.parse.quote(kind)}")
                context, page, _ = open_settled(browser, viewer)
                fetched[kind] = _scripts(page)
                context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    floor = fetched["text"]
    print(f"bare page (one st.text): {len(floor)} files, {sum(floor.values()) / 1e3:.0f} KB")
    for kind, scripts in fetched.items():
        extra = {module: size for module, size in scripts.items() if module not in floor}
        files = ", ".join(f"{module} {size / 1e3:.0f}" for module, size in sorted(extra.items(), key=lambda i: -i[1]))
        print(f"{kind}: {len(extra)} files, {sum(extra.values()) / 1e3:.0f} KB: {files or '-'}")


if __name__ == "__main__":
    main(sys.argv[1:] or [kind for kind in KINDS if kind != "text"])
