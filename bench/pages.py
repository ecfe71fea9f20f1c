"""Every page and workshop mode on a 1,000-round trace against the same on the 4-round Hengxin trace.

The standard: a trace of 1,000 rounds must feel like one of 4 on every page. For each page (and each
workshop mode of the explorer) two AppTest timings, each a ratio of the two sizes measured side by side
in this run, the median of RUNS runs per size, the sizes interleaved so that a busy spell of the machine
falls on both:
- first run: a fresh session opening the page (the server's caches warm, as a second visitor finds them);
- rerun: that session after the one interaction typical of the page (next round, next step, next slide,
  open a finding, save a note, another row, another sort).
Target: at most 1.5. The first run of a page whose work is per trace, computed once and cached (Checks,
Compare), may take up to 2 (marked "per trace").

The Live run page is not here: its trace is the scenario's own few rounds, there is no long one to open.

    .venv/bin/python -m bench.pages [--runs N] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROUNDS = 1000
RUNS = 20
TARGET, PER_TRACE_TARGET = 1.5, 2.0
ROOT = Path(__file__).resolve().parent.parent
SMALL, LARGE = "hengxin-expense", f"synthetic-{ROUNDS}"
SIZES = {SMALL: 4, LARGE: ROUNDS}
"""The two traces, by the name ?trace= gives them, and their rounds."""


@dataclass(frozen=True)
class Case:
    """One page or mode: how a session opens it on a trace, and the interaction typical of it."""

    name: str
    """What the table calls it."""
    open: Callable[[str, int], Callable[[], object]]
    """What opens the page for this trace in a fresh AppTest session the n-th time (timed), returning the session."""
    use: Callable[[object, str, int], None]
    """The interaction, the n-th time, on a session of this trace: sets widgets, does not run."""
    per_trace: bool = False
    """Whether the first run's work is per trace, computed once and cached (target PER_TRACE_TARGET)."""


def _app(trace: str | None, page: str | None = None, **query: str) -> Callable[[], object]:
    """What opens the page in a fresh session, returning the session: a visitor lands on the explorer (not
    timed: bench.explorer has it) and picks the page; a workshop mode opens by its link."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    if trace:
        at.query_params["trace"] = trace
    for key, value in query.items():
        at.query_params[key] = value
    if page is None:
        return at.run
    at.run()
    assert not at.exception, at.exception
    return lambda: at.switch_page(page).run()


def _near_end(trace: str, n: int) -> int:
    """A round near the end of the trace, the n-th time one not shown before (Hengxin's three cycle)."""
    last = SIZES[trace]
    return last - 1 - n % (last - 1)


def _number(key: str) -> Callable[[object, str, int], None]:
    return lambda at, trace, n: at.number_input(key=key).set_value(_near_end(trace, n))


def _press(key: str) -> Callable[[object, str, int], None]:
    return lambda at, trace, n: at.button(key=key).click()


def _open_finding(at, trace: str, n: int) -> None:
    # Opening a finding switches to the explorer: come back to Checks afterwards, as a user does.
    if at.button:
        next(b for b in at.button if str(b.key).startswith("checks.open.")).click()


def _save_note(at, trace: str, n: int) -> None:
    at.text_area(key="annotate.text").input(f"Looked at this round ({n}).")
    at.button(key="annotate.save").click()


def _sort(at, trace: str, n: int) -> None:
    box = at.selectbox(key="library.sort")
    box.set_value(box.options[(n + 1) % len(box.options)])


def _watch_round(at, trace: str, n: int) -> None:
    chooser = at.radio(key="watch.round") if SIZES[trace] <= 12 else at.number_input(key="watch.round")
    chooser.set_value(_near_end(trace, n))


SLIDES = 8
"""Slides of the bench's plan: four steps of a round, tokens, both dialects, the diagram, the closing slide."""


def _plan(trace: str) -> str:
    """A packed plan (?plan=) of one slide of each kind on this trace, near its end."""
    from lib.workshop_plan import Plan, Slide, pack, slide_id

    last = SIZES[trace]
    shown = [("step", last - 1, step) for step in (1, 2, 3, 4)]
    shown += [("tokens", 1, 1), ("dialects", last, 1), ("diagram", last - 1, 1), ("closing", 1, 1)]
    return pack(Plan("bench", tuple(Slide(slide_id(trace, *s), trace, *s) for s in shown)))


CASES = [
    Case("checks", lambda t, n: _app(t, "pages/checks.py"), _open_finding, per_trace=True),
    Case("annotate", lambda t, n: _app(t, "pages/annotate.py", round=str(SIZES[t] - 1)), _save_note),
    Case("compare", lambda t, n: _app(None, "pages/compare.py", compare=f"{t},{t}"), _number("compare.row"),
         per_trace=True),
    Case("fork", lambda t, n: _app(t, "pages/fork.py", round=str(SIZES[t] - 1)), _number("fork.round")),
    Case("plan", lambda t, n: _app(t, "pages/plan.py"), _press("plan.open_bundled")),
    Case("library", lambda t, n: _app(None, "pages/library.py"), _sort),
    Case("watch", lambda t, n: _app(None, "pages/watch.py"), _watch_round),
    Case("presenter", lambda t, n: _app(t, None, mode="present", round=str(SIZES[t] - 1)), _press("presenter.next")),
    Case("predict", lambda t, n: _app(t, None, mode="predict", round=str(SIZES[t] - 1)), _press("predict.reveal")),
    Case("slides", lambda t, n: _app(None, None, plan=_plan(t), slide=str(1 + n % (SLIDES - 1))), _press("presenter.next")),
]
"""Every page and mode measured. (The plain explorer and the Tokens page have bench.explorer and bench.tokens_page.)"""


def _native_rounds(text: str) -> list[str]:
    """A native trace's rounds as the request/response lines a capture holds."""
    rounds = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.dumps({"request": r["request"], "response": r["response"]}) for r in rounds if r.get("kind") == "round"]


def prepare() -> dict[str, Callable[[], None]]:
    """The traces, a capture and a library of each size in a temporary folder; for each trace, what points
    the app at its own capture and library before a run (the seams the tests use: the folders, the URL)."""
    from lib import catalog, library
    from lib.store import open_store
    from tests.synthetic import synthetic_lines

    # Every bundled trace stays (the Fork page's lessons and the bundled plan name theirs), the long one beside them.
    folder = Path(tempfile.mkdtemp(prefix="roundtrip-bench-pages-")) / "traces"
    shutil.copytree(catalog.TRACES_DIR, folder)
    texts = {SMALL: (folder / f"{SMALL}.jsonl").read_text(), LARGE: "\n".join(synthetic_lines(ROUNDS)) + "\n"}
    (folder / f"{LARGE}.jsonl").write_text(texts[LARGE])
    before = {}
    for name, text in texts.items():
        own = folder.parent / name
        own.mkdir()
        (own / "capture-bench.jsonl").write_text("\n".join(_native_rounds(text)) + "\n")
        url = f"sqlite:///{own / 'library.db'}"
        library.save(open_store(url), catalog.load_bytes(text.encode(), name).trace, source="upload")
        before[name] = _pointer(own, url)
    catalog.TRACES_DIR = folder  # the same seam as bench/explorer.py
    os.environ["ROUNDTRIP_AUTHOR"] = "Bench"
    return before


def _pointer(captures: Path, url: str) -> Callable[[], None]:
    def point() -> None:
        from lib.capture import files

        files.CAPTURES_DIR = captures
        os.environ["ROUNDTRIP_DATABASE_URL"] = url

    return point


def _timed(run: Callable[[], object]) -> tuple[float, object]:
    """(seconds `run` took, the session it returned), which must show no exception."""
    start = time.perf_counter()
    at = run()
    elapsed = time.perf_counter() - start
    assert not at.exception, at.exception
    return elapsed, at


def measure(case: Case, before: dict[str, Callable[[], None]], runs: int) -> dict[str, tuple[float, float]]:
    """{"first run" | "rerun": (median seconds on Hengxin, median on the long trace)}."""
    traces = (SMALL, LARGE)
    for trace in traces:  # once each, unmeasured: fills the server's caches as an earlier visitor would
        before[trace]()
        at = case.open(trace, 0)()
        assert not at.exception, at.exception
    times = {"first run": ([], []), "rerun": ([], [])}
    for n in range(runs):
        for which in ((0, 1) if n % 2 == 0 else (1, 0)):
            trace = traces[which]
            before[trace]()
            gc.collect()
            elapsed, at = _timed(case.open(trace, n))
            times["first run"][which].append(elapsed)
            case.use(at, trace, n)
            times["rerun"][which].append(_timed(at.run)[0])
    return {kind: (statistics.median(small), statistics.median(large)) for kind, (small, large) in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS, help="runs per size and page (the medians' size)")
    parser.add_argument("--only", default="", help="comma-separated case names")
    args = parser.parse_args()
    before = prepare()
    only = set(filter(None, args.only.split(",")))
    print(f"{'page':>10} {'timing':>10} {'4 rounds':>10} {'1,000':>10} {'ratio':>6}  target")
    for case in CASES:
        if only and case.name not in only:
            continue
        for kind, (small, large) in measure(case, before, args.runs).items():
            target = PER_TRACE_TARGET if case.per_trace and kind == "first run" else TARGET
            ratio = large / small
            verdict = "PASS" if ratio <= target else "ABOVE TARGET"
            print(f"{case.name:>10} {kind:>10} {small * 1000:>8.0f}ms {large * 1000:>8.0f}ms {ratio:>6.2f}  "
                  f"≤ {target}{' (per trace)' if target == PER_TRACE_TARGET else ''}  {verdict}", flush=True)


if __name__ == "__main__":
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    main()
