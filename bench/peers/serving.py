"""The two viewers' inputs and Inspect's server, shared by bench.peers and bench.peers.floor."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from pathlib import Path

ROUNDS = 1000
ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "bench" / "results" / "peers"
PEER_PYTHON = ROOT / ".venv-peers" / "bin" / "python"


def inputs() -> tuple[Path, Path]:
    """(folder with the native trace, folder with its Inspect log), made once and kept under bench/results."""
    from tests.synthetic import synthetic_lines

    traces, logs = WORK / "traces", WORK / "logs"
    native, converted = traces / f"synthetic-{ROUNDS}.jsonl", logs / f"synthetic-{ROUNDS}.eval"
    if not native.exists():
        traces.mkdir(parents=True, exist_ok=True)
        native.write_text("\n".join(synthetic_lines(ROUNDS)) + "\n")
    if not converted.exists() or converted.stat().st_mtime < native.stat().st_mtime:
        subprocess.run([str(PEER_PYTHON), str(ROOT / "bench" / "peers" / "to_inspect.py"), str(native), str(converted)],
                       check=True)
    return traces, logs


def serve_inspect(logs: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen([str(PEER_PYTHON.parent / "inspect"), "view", "--log-dir", str(logs), "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=1):
                return server
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError("inspect view did not come up within 120 s")
