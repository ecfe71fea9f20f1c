"""The served app's Streamlit settings, read by Streamlit's own config loader as `streamlit run` reads them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

_READ = ("from streamlit import config; config.get_config_options(force_reparse=True); "
         "print(config.get_option('runner.postScriptGC'), config.get_option('server.fileWatcherType'))")


def test_the_server_runs_no_full_garbage_collection_after_each_run_and_watches_no_files():
    # Streamlit's default collects every generation after each run, a round switch included: with a 1,000-round
    # trace loaded that held the interpreter 0.2 to 0.6 s, and the run's last messages and the page's code waited.
    read = subprocess.run([sys.executable, "-c", _READ], cwd=ROOT, capture_output=True, text=True, check=True)
    assert read.stdout.split() == ["False", "none"]
