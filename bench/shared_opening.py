"""Many conversations that open alike: the import's time per call at 2,000 conversations against 250.

An eval or an agent benchmark runs one task many times: every conversation opens with the same system prompt and
question, the model answers each differently, and each goes on from its own answer. Telling which conversation a
request goes on from looks at the conversations of its opening (lib.logs.upload._Rebuilder._thread_for), so the
time per call grows with their number. Target: the time per call at 2,000 conversations at most 1.5 times the time
per call at 250 (a reader that looks each conversation up would stay near 1). CPU time, best of 3 taken in turn.

    .venv/bin/python -m bench.shared_opening
"""

from __future__ import annotations

import time

import orjson

from bench.timing import best_of_each
from lib.logs.upload import read_upload

SMALL, LARGE = 250, 2000
TARGET = 1.5


def _call(messages: list[dict], answer: dict, call_id: str) -> bytes:
    return orjson.dumps({"request": {"model": "gpt-4o", "messages": messages}, "response": {
        "id": call_id, "object": "chat.completion", "model": "gpt-4o",
        "choices": [{"index": 0, "message": answer, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10 * len(messages), "completion_tokens": 5, "total_tokens": 10 * len(messages) + 5}}})


def shared_opening_log(conversations: int) -> bytes:
    """`conversations` runs of two calls, all opening with the same two messages, each answered in its own words."""
    opening = [{"role": "system", "content": "You are a travel assistant."},
               {"role": "user", "content": "What is the weather in Paris?"}]
    lines = []
    for n in range(conversations):
        answer = {"role": "assistant", "content": f"Run {n}: it is sunny in Paris."}
        lines.append(_call(opening, answer, f"run-{n}-1"))
        follow = opening + [answer, {"role": "user", "content": f"And tomorrow? (run {n})"}]
        lines.append(_call(follow, {"role": "assistant", "content": "Rain."}, f"run-{n}-2"))
    return b"\n".join(lines) + b"\n"


def main() -> dict:
    small, large = shared_opening_log(SMALL), shared_opening_log(LARGE)

    def read(data: bytes, conversations: int) -> None:
        upload = read_upload([("runs.jsonl", data)])
        assert len(upload.conversations) == conversations, upload.summary()

    small_s, large_s = best_of_each(3, lambda: read(small, SMALL), lambda: read(large, LARGE), clock=time.process_time)
    per_small, per_large = small_s / (2 * SMALL), large_s / (2 * LARGE)
    return {f"{SMALL} conversations: import (s)": round(small_s, 3), f"{LARGE} conversations: import (s)": round(large_s, 3),
            f"µs a call at {SMALL}": round(per_small * 1e6, 1), f"µs a call at {LARGE}": round(per_large * 1e6, 1),
            "time per call ratio": round(per_large / per_small, 2), "target": TARGET}


if __name__ == "__main__":
    outcome = main()
    width = max(map(len, outcome))
    for key, value in outcome.items():
        print(f"{key:>{width}}: {value}")
    print("PASS" if outcome["time per call ratio"] <= TARGET else "ABOVE TARGET")
