"""How the app is served: settings of .streamlit/config.toml that the first load's speed depends on."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_served_app_does_not_watch_its_source_files():
    # With the watcher on, each new session spent about 0.3 s of the server's event loop setting up watches and
    # resolving the path of every loaded module, after every run: a first load's code files waited behind it
    # (issue 21; bench/README.md, "The server's own time on a first load").
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
