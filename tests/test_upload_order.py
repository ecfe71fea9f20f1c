"""Several files uploaded at once: what Roundtrip shows does not depend on the order the files are given in.

Every group of fixtures that a test uploads together is read in each order its files can be given in: the same
conversations (names, the files that held them, rounds, messages and calls per round), the same summary, and the same
problems and notes on each file's lines. Conversations the log names none of are numbered in the order their first
calls were given (`conversation 1`, `conversation 2`): that order is the user's, so their numbers are left out of the
comparison, what each holds is not."""

import itertools
import json
import re

import pytest

from lib.logs.upload import Upload, read_upload
from tests.formats_support import FIXTURES, lines

CONTAINERS = "containers/"
NUMBERED = re.compile(r"^conversation \d+")
"""The name of a conversation the log gave none: numbered in the order the upload gives its calls."""


def _openhands_completion_files() -> list[tuple[str, bytes]]:
    """OpenHands' one file per call, as test_openhands uploads them: '<model>-<time>.json'."""
    return [(f"openai__openrouter-llama-4-maverick-{call['timestamp']}.json", json.dumps(call, indent=2).encode())
            for call in lines("openhands-completions.jsonl")]


def _fixtures(*names: str) -> list[tuple[str, bytes]]:
    return [(name.rsplit("/", 1)[-1], (FIXTURES / name).read_bytes()) for name in names]


GROUPS = {
    # A batch's requests and its results (test_formats_batches, test_upload_fixtures, test_cli, test_app_upload).
    "openai-batch": lambda: _fixtures("openai-batch-input.jsonl", "openai-batch-output.jsonl"),
    "anthropic-batch": lambda: _fixtures("anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl"),
    # A Roo Code task's API history beside its UI messages (test_cline_task, test_upload_fixtures).
    "roo-code": lambda: _fixtures(CONTAINERS + "roo-code-api_conversation_history.json",
                                  CONTAINERS + "roo-code-ui_messages.json"),
    # A tool runner's compaction beside another recording (test_formats_containers).
    "ts-compaction": lambda: _fixtures(CONTAINERS + "anthropic-ts-tool-runner-compaction.json",
                                       CONTAINERS + "anthropic-py-tool-runner-http-snapshot.json"),
    "py-compaction": lambda: _fixtures(CONTAINERS + "anthropic-py-tool-runner-compaction-summary.json",
                                       CONTAINERS + "anthropic-py-tool-runner-http-snapshot.json"),
    # OpenHands' completion files of one run (test_openhands).
    "openhands-completions": _openhands_completion_files,
    # Two runs of one session in two files (test_upload), and one file beside a copy of itself.
    "codex-two-runs": lambda: [("monday.jsonl", (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes()),
                               ("tuesday.jsonl", (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes() + b"\n")],
    "stream-json-copy": lambda: [("run.jsonl", (FIXTURES / "claude-stream-json-read.jsonl").read_bytes()),
                                 ("run (copy).jsonl", (FIXTURES / "claude-stream-json-read.jsonl").read_bytes())],
    # Cassettes of calls to an API Roundtrip does not read (test_upload).
    "unread-cassettes": lambda: [("a.yml", (FIXTURES / CONTAINERS / "ruby-openai-assistants-run-stream.yml").read_bytes()),
                                 ("b.yml", (FIXTURES / CONTAINERS / "ruby-openai-assistants-run-stream.yml").read_bytes()
                                  + b"\n")],
}


def _seen(upload: Upload, copies: set[str]) -> dict:
    """What a user sees of an upload, told apart from the order of its files: each conversation by its name, with the
    files that held it (in name order: 'a + b' or 'b + a' is the same two files) and each round's messages and calls; every
    problem and note by its file and line. A copy's note names whichever file came first: said of both alike."""
    conversations = sorted(
        (NUMBERED.sub("conversation", c.id), tuple(sorted({"a copy" if name in copies else name for name in c.source.split(" + ")})),
         tuple((len(r.request.messages), len(r.tool_calls), r.error is not None) for r in c.trace.rounds))
        for c in upload.conversations)
    said = sorted((p.file, p.line, p.message) for p in upload.problems)
    noted = sorted(("a copy", n.line, "") if n.file in copies else (n.file, n.line, n.message) for n in upload.notes)
    return {"summary": upload.summary(), "conversations": conversations, "problems": said, "notes": noted,
            "formats": sorted(upload.formats)}


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_order_of_the_files_reads_to_what_the_first_order_does(group):
    files = GROUPS[group]()
    # A file whose bytes another holds too is read once, as whichever came first: either may be the copy.
    copies = {name for name, data in files if sum(d == data for _, d in files) > 1}
    orders = list(itertools.permutations(files)) if len(files) <= 4 else [files, files[::-1]]
    seen = [_seen(read_upload(list(order)), copies) for order in orders]
    assert seen[0]["conversations"] or seen[0]["notes"], "the group reads to nothing: nothing to compare"
    for other in seen[1:]:
        assert other == seen[0]
