"""Every round an importer converted says which format it was converted from, by name, never "another log format"."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lib.logs import FORMATS, spans
from lib.logs.upload import read_upload
from lib.provenance import CONVERTED_FROM, origin_line

FIXTURES = Path(__file__).parent / "fixtures"
LOGS = Path(__file__).parent.parent / "lib" / "logs"


def _converted_from_in_the_readers() -> set[str]:
    """Every `converted_from` the readers of lib/logs can write: their literals, their own names where they write
    `self.name`, and the spans reader's table."""
    found = set(spans.CONVERTED_FROM.values())
    for module in LOGS.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        found.update(re.findall(r'converted_from\s*=\s*"([^"]+)"', source))
        if re.search(r"converted_from\s*=\s*self\.name", source):
            found.update(f.name for f in FORMATS if f.__module__ == f"lib.logs.{module.stem}")
    return found


def test_every_converted_from_a_reader_writes_has_a_name_in_the_provenance_line():
    assert sorted(_converted_from_in_the_readers() - set(CONVERTED_FROM)) == []


def test_no_round_of_any_fixture_says_it_was_converted_from_another_log_format():
    read = set()
    for path in sorted([*FIXTURES.glob("*"), *(FIXTURES / "containers").glob("*")]):
        if path.is_dir() or path.suffix == ".md":
            continue
        upload = read_upload([(path.name, path.read_bytes())])
        read.update(upload.formats)
        for conversation in upload.conversations:
            for round_ in conversation.trace.rounds:
                assert "another log format" not in origin_line(conversation.trace, round_), (path.name, round_.index)
    # The walk reads every format but those whose bodies only the cassette readers' fixtures hold (Cohere's v1 and v2
    # chat, Gemini's Interactions API).
    assert {f.name for f in FORMATS} - read <= {"cohere", "cohere-v1", "gemini-interactions"}


def test_a_langfuse_generation_no_converter_reads_says_it_came_from_langfuse():
    # A Vercel AI SDK prompt as langfuse's vercel-aisdk trace holds it: no converter reads its shape.
    export = {"trace": {"id": "df41e597", "name": "ai.generateText"}, "observations": [{
        "id": "obs-1", "type": "GENERATION", "name": "ai.generateText.doGenerate", "model": "gpt-5",
        "startTime": "2025-11-17T14:55:18.787Z", "endTime": "2025-11-17T14:55:21.830Z",
        "usageDetails": {"input": 62, "output": 85, "total": 147},
        "input": '[{"role":"user","content":[{"type":"text","text":"What is the weather?"}]}]',
        "output": '[{"toolCallId":"call_1","toolName":"getWeather","input":"{}"}]'}]}
    (conversation,) = read_upload([("vercel.json", json.dumps(export).encode())]).conversations
    (round_,) = conversation.trace.rounds
    line = origin_line(conversation.trace, round_)
    assert "Converted from a Langfuse trace export" in line and "another log format" not in line
