"""The command line, for teams screening their own logs: `python -m lib check|summarize|convert|run`.

Every command reads any format the upload reads (lib/logs/upload.py), one or many
conversations per file.

- `check FILE...` prints one line per finding; exits 1 when any finding is an error, 2 when a
  file cannot be read or has unreadable lines (named on stderr), 0 otherwise.
- `summarize FILE... [--format NAME] [--json]` prints what was found; exits 0 when at least one round
  loaded, 2 with a clear message when none did (with --json, after the document and its problems). Several files
  are read as one upload, as the app's uploader reads them: each problem and note names its file (`file`, and its
  `unit` in the JSON), each conversation the file that held it (`source`).
  Each round of the JSON: `index`, `request_in_log`, `messages_in_request` (the messages the program sent,
  as the Tokens page's "messages sent"; null when the request is not in the log), `messages_held` (earlier
  messages the provider held under previous_response_id, previous_interaction_id or a conversation: read and
  billed, not sent),
  `new_messages` (of those sent, the ones the previous request lacked), `resent_messages` (those it resent
  unchanged) and `changed_messages` (those it resent with changes, or that stand where it had another message): the
  explorer's "new", "resent unchanged" and "changed since the previous request", the Tokens page's columns and chart
  (lib.growth.standing), adding up with messages_held to what the model reads; `new_counted_against` (the round whose
  request that is: the one before, or the latest earlier one the log kept when it lost the one before; null for
  round 1, and the three counts null too when the log kept no earlier request), `tool_calls`, `tool_results`,
  `finish`, `steps`, `inferred`, `usage` (input, billed_input, billing, output, source, reasoning, cached,
  cache_written, input_parts; billed_input is the input as the Tokens page's "input billed" sums it, null where the call failed, or
  the log holds no response to it, and does not say whether the provider billed it, which `billing` then says; reasoning is null where the usage
  counts none apart, as Anthropic's does not: not 0 tokens spent; cached, the input read from the prompt cache, is null
  where the usage holds no such count, or is our estimate; cache_written, the input written to it, likewise (OpenAI's
  usage counts none); input_parts named as the explorer names them, the part
  beyond our count of an estimate carried from a reported round named so), `finish_reason`, `error`, and
  `call_made` (false when no provider saw the request, a replay miss: its usage and input parts are null).
  What the log did not keep is null, never 0 or []: a request's counts, results and input parts when the request
  is not in the log, the calls and output of a request the log ends on, the calls of an answer the log did not
  keep (a span without content capture; the Tokens page's "not in the log").
- `convert FILE -o OUT.jsonl` writes each conversation in the native format; exits 2, saying why, when the file
  cannot be read or OUT cannot be written (a folder, a folder not there).
- `run SCENARIO --provider replay -o OUT.jsonl` plays a scenario's tool loop (lib/live/) and writes
  the native trace as it grows; exits 0 when the model answered, 1 when the run ended otherwise
  (an error round, the round cap), 2 when it could not start (no key).
- `diff A B [--json]` aligns two runs round by round (files, or bundled trace names; each file's first
  conversation) and prints a verdict per round; exits 1 when the runs diverge, so CI can guard a change.
- `proxy [--port 8700] [--upstream URL] [-o FILE]` records an agent's calls and OTLP spans (lib/capture/).
- `save FILE... [--source upload|capture|live|fork] [--author NAME]` keeps every conversation of the files in
  the library of the store `ROUNDTRIP_DATABASE_URL` names (lib/library.py) and prints each one's id and link
  `?trace=<id>`; exits 0 when all were saved, 2 when a file or some of its lines could not be read (the good
  conversations are saved all the same), 3 when the store cannot be used.
- `search [TEXT] [--tool NAME] [--model NAME] [--finding CODE] [--severity S] [--label NAME] [--source S]
  [--limit N] [--json]` prints the kept conversations that match, the latest first (id, title, model, rounds,
  tokens, whether they hold our estimate and whether it counts what the log holds only, findings, link); exits 0,
  or 3 when the store cannot be used.

Trace text is untrusted: every line goes out through `lib.text.terminal_safe`, so an escape
sequence in a title is printed as `\u001b[2J`, not obeyed. A reader that stops early (`| head`)
ends the command quietly with status 141.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from lib import library
from lib.capture.command import add_proxy, serve
from lib.catalog import TRACES_DIR
from lib.checks import Finding, run_checks
from lib.compare import Run, compare
from lib.dialects import openai_chat
from lib.encodings import encoding_name_for_model
from lib.logs import format_names
from lib.logs.native import write_trace
from lib.logs.record import Problem
from lib.logs.upload import Upload, read_upload
from lib.model import ProviderError, Round, Trace
from lib.prices import DEFAULT_PRICES
from lib.summary import billing_words, finish_words, said_parts, summarize as summarize_rounds
from lib.steps import steps_for_round
from lib.store import StoreUnavailable, database_url, open_store
from lib.text import plural, terminal_safe
from lib.tokens import counter_for

UNREADABLE = 2
"""Exit status when a file, or some of its lines, could not be read."""

STORE_UNUSABLE = 3
"""Exit status of `save` and `search` when the store cannot be opened or used."""

CLOSED_PIPE = 141
"""Exit status when the reader of our output closed it early: 128 + SIGPIPE, as a shell reports it."""


def _say(line: str, stream=None) -> None:
    """Print one line, any control character from a trace in it shown as an escape, not obeyed."""
    print(terminal_safe(line), file=stream or sys.stdout)


def _read(path: str, forced: str | None = None) -> Upload | None:
    """The file read as an upload, its bad lines on stderr; None when the file cannot be opened."""
    return _read_together([path], forced)


def _read_together(paths: list[str], forced: str | None = None) -> Upload | None:
    """The files read as one upload, as the app's uploader reads several, their bad lines on stderr (each named by its
    file, as the sidebar names it, where there are several); None when a file cannot be opened."""
    files = []
    for path in paths:
        try:
            files.append((Path(path).name, Path(path).read_bytes()))
        except OSError as exc:
            _say(f"{path}: cannot be read: {exc.strerror or exc}", sys.stderr)
            return None
    upload = read_upload(files, forced)
    for problem in (*upload.problems, *upload.notes):
        _say(f"{paths[0]}: {upload.said(problem)}" if len(paths) == 1 else upload.said(problem), sys.stderr)
    return upload


def _where(upload: Upload, conversation: str, finding: Finding) -> str:
    # A single conversation needs no name; several do.
    return finding.where if len(upload.conversations) == 1 else f"{conversation} {finding.where}"


def check(paths: list[str], forced: str | None = None) -> int:
    """Print every finding of every file; the exit status CI acts on."""
    status = 0
    for path in paths:
        upload = _read(path, forced)
        if upload is None or upload.problems or not upload.conversations:
            status = UNREADABLE
        if upload is None:
            continue
        found = [(c.id, f) for c in upload.conversations for f in run_checks(c.trace)]
        for conversation, f in found:
            _say(f"{path}: {f.severity} {f.code} {_where(upload, conversation, f)}: {f.message}")
        if not found:
            _say(f"{path}: no findings in {plural(upload.rounds, 'round')}")
        if any(f.severity == "error" for _, f in found):
            status = max(status, 1)
    return status


def _finish(round_: Round) -> str:
    if round_.error is not None:
        return "error"
    if round_.response is None:
        return "unknown"
    # The summary names a stop as a finish_reason would; one with no equivalent is `unknown`, not made up, and one
    # the log did not record is in parentheses, as on the Tokens page.
    stop = round_.response.stop
    return "unknown" if stop in (None, "other") else finish_words(round_, openai_chat.FINISH_REASON_OF[stop])


def _error(error: ProviderError) -> dict:
    """A failed round's error in the summary document: its status and words, and for a stream an error event ended
    (ProviderError.ended_stream) the HTTP status the answer began under, apart from the status the event names."""
    said = {"status": error.status, "message": error.message}
    if error.ended_stream:
        said["stream_ended"] = {"http_status": error.stream_status, "event_status": error.status}
    return said


def _rounds(trace: Trace) -> list[dict]:
    rows = summarize_rounds(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    out = []
    for round_, row in zip(trace.rounds, rows):
        labels = steps_for_round(trace, round_.index)
        derived = round_.extra.get("derived") or []
        source = row.usage.source
        if source == "estimated" and "usage" in derived:
            source = "derived"
        out.append({
            "index": round_.index,
            "request_in_log": round_.request_recorded,
            # A replay miss: no provider saw the request, so its usage is null for want of a call, not of a log.
            "call_made": row.sent,
            # What the log did not keep is null, as the Tokens page says "not in the log": never 0 or [].
            "messages_in_request": row.sent_if_known,
            "messages_held": row.held_if_known,
            "new_messages": row.new_if_known,
            # The rest of what the program sent, as the explorer and the Tokens page place it (lib.growth.standing).
            "resent_messages": row.resent_if_known,
            "changed_messages": row.changed_if_known,
            "new_counted_against": row.new_against,
            "tool_calls": [{"id": c.id, "name": c.name} for c in round_.tool_calls]
            if row.calls_if_known is not None else None,
            # A command's result in the text (lib.injected.command_result) has step 4 but no call id to list.
            "tool_results": [label.call_id for label in labels if label.step == 4 and label.call_id is not None]
            if round_.request_recorded else None,
            "finish": _finish(round_),
            "steps": sorted({label.step for label in labels}),
            "inferred": "response" in derived,
            # Reasoning the usage does not count apart (Anthropic's, an estimate's) is null, not 0 tokens spent.
            # A call refused or failed with no usage, or one the log holds no response to: its input is known, whether
            # it was billed is not (null).
            "usage": {"input": row.input_if_known, "billed_input": row.billed_input_if_known,
                      "billing": billing_words(row), "output": row.output_if_known, "source": source,
                      "reasoning": row.usage.reasoning_tokens if row.sent else None,
                      # A usage with no cache count (and an estimate) is null, not 0 tokens read from the cache.
                      "cached": row.cached_if_known,
                      # Likewise what it wrote to the cache: null where the usage holds no count (OpenAI's, none).
                      "cache_written": row.cache_written_if_known,
                      "input_parts": dict(said_parts(row)),
                      # Anthropic's advisor: another model's call inside this one, billed at its own rates, so not in
                      # the counts above (lib.summary.other_model_calls_words says it on every page).
                      "other_model_calls": [{"model": c.model, "input": c.usage.input_tokens,
                                             "output": c.usage.output_tokens}
                                            for c in row.usage.other_model_calls] if row.sent else []},
            "finish_reason": round_.response.finish_reason if round_.response else None,
            "error": _error(round_.error) if round_.error else None,
        })
    return out


def summary_of(upload: Upload) -> dict:
    """The summary document: format, problems, conversations with their rounds, and checks."""
    formats = sorted(upload.formats.items(), key=lambda item: -item[1][0])
    return {
        "format": formats[0][0] if len(formats) == 1 else ("mixed" if formats else "unknown"),
        "formats": {name: {"lines": count, "rule": rule} for name, (count, rule) in formats},
        "summary": upload.summary(),
        "problems": [{**_file(p), "line": p.line, "error": p.message} for p in upload.problems],
        "notes": [{**_file(n), "line": n.line, "note": n.message} for n in upload.notes],
        "conversations": [
            {"id": c.id, "title": c.trace.title, **({"source": c.source} if c.source else {}),
             "dialect": c.trace.dialect, "model": c.trace.model, "rounds": _rounds(c.trace)}
            for c in upload.conversations
        ],
        "checks": [
            {"conversation": c.id, "round": f.round, "code": f.code, "severity": f.severity, "path": f.path,
             "message": f.message}
            for c in upload.conversations
            for f in run_checks(c.trace)
        ],
    }


def _file(problem: Problem) -> dict:
    """The file a problem or note is in, for the summary document of several files (`file`, and `unit` where it is not
    the upload's); nothing for one file's."""
    if problem.file is None:
        return {}
    return {"file": problem.file, **({"unit": problem.unit} if problem.unit else {})}


def _size(row: dict) -> str:
    if not row["request_in_log"]:
        return "not in the log"
    held = f" (+{row['messages_held']} held)" if row["messages_held"] else ""
    return f"{row['messages_in_request']}{held}"


def summarize(paths: list[str], forced: str | None, as_json: bool) -> int:
    """Print what a file holds, or several read as one upload, as JSON or as a few lines for a person."""
    upload = _read_together(paths, forced)
    path = paths[0] if len(paths) == 1 else ", ".join(paths)
    if upload is None:
        return UNREADABLE
    if not upload.conversations:
        _say(f"{path}: no rounds could be read ({upload.summary()}).", sys.stderr)
        if not as_json:
            return UNREADABLE
    document = summary_of(upload)
    if as_json:
        # json escapes C0 controls but, with ensure_ascii=False, not C1 or bidi ones: _say does. Its
        # line breaks are its own indentation; one inside a string is already written \n.
        for line in json.dumps(document, ensure_ascii=False, indent=2).splitlines():
            _say(line)
        return 0 if upload.conversations else UNREADABLE
    _say(f"{path}: {document['summary']}")
    for conversation in document["conversations"]:
        sizes = [_size(r) for r in conversation["rounds"]]
        # The file that held it, unless its id says it already (one told apart from another file's of its name).
        held = f" ({conversation['source']})" if len(paths) > 1 else ""
        held = "" if conversation["id"].endswith(held) else held
        _say(f"  {conversation['id']}{held}: {plural(len(conversation['rounds']), 'round')}, messages "
             f"{' → '.join(sizes)}")
    for finding in document["checks"]:
        _say(f"  {finding['severity']} {finding['code']} in {finding['conversation']} round {finding['round']}")
    return 0


def convert(path: str, out: str, forced: str | None) -> int:
    """Write each conversation of a log as a native trace file."""
    upload = _read(path, forced)
    if upload is None or not upload.conversations:
        _say(f"{path}: nothing to convert.", sys.stderr)
        return UNREADABLE
    target = Path(out)
    for n, conversation in enumerate(upload.conversations, start=1):
        written = target if len(upload.conversations) == 1 else target.with_name(f"{target.stem}-{n}{target.suffix}")
        try:
            written.write_text("".join(line + "\n" for line in write_trace(conversation.trace)), encoding="utf-8")
        except OSError as exc:  # a folder named for the file, a folder that is not there, no permission
            _say(f"{written}: cannot be written: {exc.strerror or exc}", sys.stderr)
            return UNREADABLE
        _say(f"{written}: {conversation.id}, {plural(len(conversation.trace.rounds), 'round')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status, CLOSED_PIPE when the reader stopped reading."""
    try:
        status = _command(argv)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
        return status
    except BrokenPipeError:
        # `summarize --json | head` is normal use. Python would flush stdout again at exit and
        # report that this pipe is closed too; point stdout at /dev/null first (the Python docs' recipe).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return CLOSED_PIPE


def _command(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib", description="Screen LLM tool-calling logs.")
    formats = ["auto", *format_names()]
    commands = parser.add_subparsers(dest="command", required=True)
    checking = commands.add_parser("check", help="list pitfalls; exit 1 on an error-level finding, 2 on unreadable input")
    checking.add_argument("files", nargs="+", metavar="FILE")
    summarizing = commands.add_parser("summarize", help="what a log holds: conversations, rounds, steps, checks")
    summarizing.add_argument("files", nargs="+", metavar="FILE", help="several files are read as one upload, as the "
                             "app's uploader reads them (a batch's requests and results joined)")
    summarizing.add_argument("--json", action="store_true", help="print one JSON document")
    converting = commands.add_parser("convert", help="write each conversation as a native trace file")
    converting.add_argument("file", metavar="FILE")
    converting.add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    for command in (checking, summarizing, converting):
        command.add_argument("--format", choices=formats, default="auto", help="read every line as this format")
    _add_run(commands)
    add_proxy(commands)
    diffing = commands.add_parser("diff", help="compare two runs round by round; exit 1 when they diverge")
    diffing.add_argument("files", nargs=2, metavar="A|B", help="a log file or a bundled trace's name")
    diffing.add_argument("--json", action="store_true", help="print one JSON document")
    _add_library(commands, formats)
    args = parser.parse_args(argv)
    if args.command in ("save", "search"):
        return _in_library(args)
    if args.command == "diff":
        return diff(*args.files, args.json)
    if args.command == "run":
        return _run(args)
    if args.command == "proxy":
        return serve(args)
    forced = None if args.format == "auto" else args.format
    if args.command == "check":
        return check(args.files, forced)
    if args.command == "summarize":
        return summarize(args.files, forced, args.json)
    return convert(args.file, args.output, forced)


SCENARIO_NAMES = ("hengxin", "larkfield", "order-status", "loan")
"""The scenarios `run` can play (lib/live/scenarios.py)."""

TEACHING_SWITCHES = {"drop-result": "drop_result", "empty-result": "empty_result", "tools-in-system": "tools_in_system"}
"""`run --teach` names and the Teaching fields they turn on."""


def _add_run(commands) -> None:
    running = commands.add_parser("run", help="play a scenario's tool loop and write the native trace as it grows")
    running.add_argument("scenario", choices=SCENARIO_NAMES, metavar="SCENARIO", help=", ".join(SCENARIO_NAMES))
    running.add_argument("--provider", choices=["replay", "openai", "anthropic", "compatible"], default="replay",
                         help="replay answers from the bundled recordings and needs no key (the default)")
    running.add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    running.add_argument("--model", help="the model to ask for (default: the scenario's)")
    running.add_argument("--base-url", help="an OpenAI-compatible server, e.g. http://localhost:11434/v1/")
    running.add_argument("--temperature", type=float, help="sent only when given")
    running.add_argument("--tool-choice", help="auto, required, none or a tool name (default: the scenario's)")
    running.add_argument("--parallel-tool-calls", choices=["on", "off"], help="default: the scenario's")
    running.add_argument("--max-rounds", type=int, default=8, help="the hard cap on model calls (default 8)")
    running.add_argument("--no-guard", action="store_true", help="no re-ask when the model narrates without a call")
    running.add_argument("--decline", action="store_true",
                         help="decline every call that changes data (default: approve)")
    running.add_argument("--teach", action="append", choices=list(TEACHING_SWITCHES), default=[],
                         help="make one mistake on purpose; may be given more than once")


def _run(args) -> int:
    # Imported here: the SDKs take a while to load, and the other commands never need them.
    from dataclasses import replace

    from lib.live.launch import RunSetup, run_headless
    from lib.live.runner import LoopOptions, Teaching
    from lib.live.scenarios import SCENARIOS

    scenario = SCENARIOS[args.scenario]
    chosen = {"model": args.model, "temperature": args.temperature, "tool_choice": args.tool_choice,
              "parallel_tool_calls": {"on": True, "off": False}.get(args.parallel_tool_calls)}
    options = replace(scenario.options, **{k: v for k, v in chosen.items() if v is not None})
    setup = RunSetup(scenario, args.provider, options, LoopOptions(args.max_rounds, not args.no_guard),
                     Teaching(**{TEACHING_SWITCHES[name]: True for name in args.teach}), args.base_url)
    return run_headless(setup, Path(args.output), args.decline)


def _side(name: str) -> Run | None:
    """A file's first conversation, or a bundled trace by name, with its figures; None when it cannot be read."""
    bundled = TRACES_DIR / f"{name}.jsonl"
    upload = _read(str(bundled) if not Path(name).exists() and bundled.exists() else name)
    if upload is None or not upload.conversations:
        if upload is not None:
            _say(f"{name}: no rounds could be read.", sys.stderr)
        return None
    trace = upload.conversations[0].trace
    rows = summarize_rounds(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    return Run(name, trace, rows, run_checks(trace))


def diff(left_name: str, right_name: str, as_json: bool) -> int:
    """Print two runs aligned round by round; 0 when every round says the same, 1 when they diverge or a round could
    not be compared in full."""
    left, right = _side(left_name), _side(right_name)
    if left is None or right is None:
        return UNREADABLE
    found = compare(left, right, DEFAULT_PRICES)
    if as_json:
        document = {"left": asdict(found.left), "right": asdict(found.right), "first_divergence": found.first_divergence,
                    "first_uncompared": found.first_uncompared,
                    "rounds": [asdict(pair) for pair in found.pairs]}
        for line in json.dumps(document, ensure_ascii=False, indent=2).splitlines():
            _say(line)
    else:
        for side, run in (("left", found.left), ("right", found.right)):
            _say(f"{side}: {run.name}: {plural(run.rounds, 'round')}, {plural(run.calls, 'call')}, "
                 f"{run.input_tokens:,} tokens in, {run.output_tokens:,} out, {plural(run.findings, 'finding')}")
        first, unsure = found.first_divergence, found.first_uncompared
        _say(f"first divergence at row {first}" if first is not None else
             f"nothing the logs hold differs, but row {unsure} on could not be compared in full" if unsure is not None
             else "the runs say the same in every round")
        for n, pair in enumerate(found.pairs, start=1):
            _say(f"{n:>4}  {pair.left or '-'} ↔ {pair.right or '-'}  {pair.verdict}")
    # A round not compared in full is not known to be the same: a guard in CI does not pass on it.
    return 0 if all(pair.same for pair in found.pairs) else 1


def _add_library(commands, formats: list[str]) -> None:
    saving = commands.add_parser("save", help="keep every conversation of the files in the library; print ids and links")
    saving.add_argument("files", nargs="+", metavar="FILE")
    saving.add_argument("--format", choices=formats, default="auto", help="read every line as this format")
    saving.add_argument("--source", choices=library.SOURCES, default="upload", help="how the traces came in")
    saving.add_argument("--author", default="", help="who saves them (default: nobody named)")
    searching = commands.add_parser("search", help="list the kept conversations that match, the latest first")
    searching.add_argument("text", nargs="*", metavar="TEXT", help="words that must all be in the trace's messages or tool results")
    for option, meaning in (("tool", "a tool the model called"), ("model", "the model"), ("finding", "a check's code"),
                            ("severity", "a finding's severity"), ("label", "a note's label"), ("source", "how it came in")):
        searching.add_argument(f"--{option}", default="", help=meaning)
    searching.add_argument("--limit", type=int, default=50, help=f"at most this many (1 to {library.PAGE_LIMIT})")
    searching.add_argument("--json", action="store_true", help="print one JSON document")


def _in_library(args) -> int:
    try:
        store = open_store(database_url())
    except StoreUnavailable as exc:
        _say(str(exc), sys.stderr)
        return STORE_UNUSABLE
    try:
        return save_files(store, args) if args.command == "save" else search(store, args)
    except StoreUnavailable as exc:
        _say(str(exc), sys.stderr)
        return STORE_UNUSABLE
    except library.SearchError as exc:
        _say(f"search: {exc}", sys.stderr)
        return UNREADABLE
    finally:
        store.close()


def save_files(store, args) -> int:
    """Keep every conversation of every file; 2 when some input could not be read."""
    status = 0
    forced = None if args.format == "auto" else args.format
    for path in args.files:
        upload = _read(path, forced)
        if upload is None or upload.problems or not upload.conversations:
            status = UNREADABLE
        for conversation in upload.conversations if upload else ():
            trace_id = library.save(store, conversation.trace, source=args.source, author=args.author)
            _say(f"{path}: {conversation.id}: {plural(len(conversation.trace.rounds), 'round')} "
                 f"saved as {trace_id} {library.link(trace_id)}")
        if upload is not None and not upload.conversations:
            _say(f"{path}: no conversation could be read ({upload.summary()}).", sys.stderr)
    return status


OF_WHAT_THE_LOG_HOLDS = " (estimated of what the log holds only)"
"""After a searched trace's tokens, where its estimate counts what its log holds only (an agent's session log, which
never keeps the instructions or the tool list it sent): the Library page says the same under its list."""


def search(store, args) -> int:
    """Print the kept conversations matching the options."""
    query = library.LibraryQuery(text=" ".join(args.text), tool=args.tool, model=args.model, finding=args.finding,
                                 severity=args.severity, label=args.label, source=args.source, limit=args.limit)
    page = library.search(store, query)
    found = [{"id": row.id, "title": row.title, "model": row.model, "rounds": row.rounds, "tokens": row.tokens,
              "tokens_estimated": row.tokens_estimated, "tokens_words": row.tokens_words,
              "estimate_of_what_the_log_holds": row.estimate_of_what_the_log_holds,
              "findings": list(row.finding_codes), "link": library.link(row.id)} for row in page.rows]
    if args.json:
        for line in json.dumps({"total": page.total, "total_capped": page.more, "matches": found}, ensure_ascii=False, indent=2).splitlines():
            _say(line)
        return 0
    for row in found:
        _say(f"{row['id']}  {row['title']}  {row['model'] or '-'}  {plural(row['rounds'], 'round')}  "
             f"tokens {row['tokens_words']}{OF_WHAT_THE_LOG_HOLDS if row['estimate_of_what_the_log_holds'] else ''}  "
             f"{', '.join(row['findings']) or 'no findings'}")
    _say(f"{page.shown_total()} matching" + (f", the first {len(found)} shown" if page.total > len(found) else ""))
    return 0
