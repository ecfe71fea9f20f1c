"""Every recorded log, every round: what the log lacks and where it came from are each said once, in one voice."""

import re

import pytest

from lib.logs.upload import read_upload
from lib.provenance import CONVERTED_FROM, origin_line, provenance_detail
from lib.summary import summarize, tool_list_words
from lib.tokens import CHARACTER_COUNTER
from tests.screen import FIXTURES

LOGS = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
"""The recorded logs the importers are tested on."""

SAID_SENT = re.compile(r"(both were sent|tool list[^.]*(was|were) sent|it was sent, but it is neither)")
"""A reader's note saying a tool list it lacks was sent: the one statement where the list would be says that."""


def _rounds(path):
    try:
        upload = read_upload([(path.name, path.read_bytes())])
    except Exception:  # a fixture of a damaged file: what it says is tested where it is used
        return
    for conversation in upload.conversations:
        trace = conversation.trace
        yield from zip(trace.rounds, summarize(trace, CHARACTER_COUNTER), [trace] * len(trace.rounds))


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_no_round_says_its_tool_list_was_sent_and_that_it_may_not_have_been_nor_names_its_source_twice(path):
    for round_, row, trace in _rounds(path):
        detail = provenance_detail(trace.round_provenance(round_))
        if not row.tool_list_recorded:
            statement = tool_list_words(row)
            assert not SAID_SENT.search(detail), (round_.index, detail)
            assert "The recorded request lacks: tools" not in detail
            if "whether or not one was sent" in statement:
                assert not row.tool_list_sent
        source = CONVERTED_FROM.get(round_.extra.get("converted_from") or "")
        if source:
            assert source in origin_line(trace, round_)
            assert source not in detail, (round_.index, detail)
