"""What a live run adds to each round, beyond the model's own latency (issue 9).

The Hengxin scenario runs end to end through the real openai SDK against the loopback recorded
server, which waits exactly 1 second before each answer, as a model would. Each round's wall time,
as the runner spends it (request built, trace written, SDK call, response parsed, tools run on
SQLite, results appended, trace written again), minus that 1 second is the overhead. It is split
into the part spent inside the SDK call (HTTP on the loopback, JSON, retries machinery) and the
runner's own part. Bounded: 2 runs of 4 rounds, about 9 seconds.

    .venv/bin/python -m bench.live_overhead
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from lib.live.launch import RunSetup, start
from lib.live.replay import RECORDINGS_DIR, read_recordings
from lib.live.scenarios import HENGXIN
from tests.recorded_server import RecordedServer

MODEL_DELAY_S = 1.0
RUNS = 2


def _one_run(url: str) -> list[tuple[float, float]]:
    """(wall seconds, seconds inside the SDK call) for each round of one Hengxin run."""
    with tempfile.TemporaryDirectory() as directory:
        runner = start(RunSetup(HENGXIN, "openai", base_url=url, max_retries=0), "sk-bench-not-a-key", Path(directory))
        rounds = []
        while runner.status.state != "done":
            started = time.perf_counter()
            status = runner.step()
            if status.state == "needs-approval":
                runner.approve(status.pending.id)  # a person's pause is not the runner's overhead
            rounds.append(time.perf_counter() - started)
        latencies = [line.latency_ms / 1000 for line in runner.trace.read()[0].rounds]
    assert runner.status.outcome == "answered", runner.status.message
    return list(zip(rounds, latencies, strict=True))


def main() -> dict:
    """Measure, print a table, return the figures."""
    with RecordedServer(recordings=read_recordings(RECORDINGS_DIR / "hengxin.jsonl"),
                        recorded_delay_s=MODEL_DELAY_S, limit_s=60) as server:
        _one_run(server.url + "/v1")  # warm-up: imports, the SDK's first connection
        measured = [r for _ in range(RUNS) for r in _one_run(server.url + "/v1")]
    walls = [wall for wall, _ in measured]
    overhead = [wall - MODEL_DELAY_S for wall in walls]
    in_sdk = [latency - MODEL_DELAY_S for _, latency in measured]
    runner_own = [wall - latency for wall, latency in measured]
    figures = {
        "rounds": len(measured),
        "wall_per_round_s": statistics.mean(walls),
        "overhead_per_round_ms": statistics.mean(overhead) * 1000,
        "overhead_fraction_of_1s": statistics.mean(overhead) / MODEL_DELAY_S,
        "worst_overhead_fraction": max(overhead) / MODEL_DELAY_S,
        "sdk_and_http_ms": statistics.mean(in_sdk) * 1000,
        "runner_own_ms": statistics.mean(runner_own) * 1000,
    }
    print(f"{figures['rounds']} rounds, the server waiting {MODEL_DELAY_S:.1f} s before each answer")
    print(f"wall time per round         {figures['wall_per_round_s']:.4f} s")
    print(f"overhead per round          {figures['overhead_per_round_ms']:.1f} ms = "
          f"{figures['overhead_fraction_of_1s']:.4f} of 1 s (worst round {figures['worst_overhead_fraction']:.4f})")
    print(f"  inside the SDK call       {figures['sdk_and_http_ms']:.1f} ms (HTTP on 127.0.0.1, JSON)")
    print(f"  the runner's own work     {figures['runner_own_ms']:.1f} ms (trace writes, parsing, tools, SQLite)")
    return figures


if __name__ == "__main__":
    main()
