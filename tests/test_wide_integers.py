"""An integer past 64 bits is shown as written, in every format: orjson would read it as a float, silently."""

import json

import pytest

from lib import catalog, library
from lib.logs.upload import read_upload
from lib.store import open_store
from tests.screen import FIXTURES

WIDE = 123456789012345678901234567890
"""Past 64 bits: orjson reads it as 1.2345678901234568e+29."""


def _read(name: str, written: str, wide: str) -> list:
    data = (FIXTURES / name).read_bytes()
    assert written.encode() in data
    upload = read_upload([(name, data.replace(written.encode(), wide.encode(), 1))])
    assert upload.problems == ()
    return [c.trace for c in upload.conversations]


def _calls(traces: list) -> list:
    return [call for trace in traces for round_ in trace.rounds if round_.response
            for call in round_.response.message.tool_calls]


@pytest.mark.parametrize("name, written, wide", [
    ("anthropic-batch-requests.jsonl", '"input": {"city": "Oslo"}', f'"input": {{"n": {WIDE}, "city": "Oslo"}}'),
    ("bedrock-converse.jsonl", '"input": {"city": "London"', f'"input": {{"n": {WIDE}, "city": "London"'),
    ("ollama-chat.jsonl", '"arguments": {"format": "celsius"', f'"arguments": {{"n": {WIDE}, "format": "celsius"'),
    ("otel-genai.jsonl", '\\"arguments\\": {\\"city\\": \\"Oslo\\"}',
     f'\\"arguments\\": {{\\"n\\": {WIDE}, \\"city\\": \\"Oslo\\"}}'),
    ("otlp-span-per-call.jsonl", '\\"arguments\\":{\\"city\\":\\"Tokyo\\"}',
     f'\\"arguments\\":{{\\"n\\":{WIDE},\\"city\\":\\"Tokyo\\"}}'),
], ids=lambda value: value if value.endswith(("jsonl", "har")) else "")
def test_a_call_argument_past_64_bits_is_shown_as_the_model_wrote_it(name, written, wide):
    shown = [call.arguments_raw for call in _calls(_read(name, written, wide)) if '"n"' in call.arguments_raw]
    assert shown and all(str(WIDE) in raw and "e+29" not in raw for raw in shown)
    assert json.loads(shown[0])["n"] == WIDE


def test_a_message_attribute_past_64_bits_in_a_har_body_stays_an_integer():
    traces = _read("containers/openai-tool-calls.har", '\\"role\\": \\"assistant\\"',
                   f'\\"role\\": \\"assistant\\", \\"n\\": {WIDE}')
    answered = [r.response.message.raw for t in traces for r in t.rounds if r.response and "n" in r.response.message.raw]
    assert answered and answered[0]["n"] == WIDE and isinstance(answered[0]["n"], int)


def test_a_kept_trace_reads_back_its_wide_integer(tmp_path):
    (trace,) = _read("ollama-chat.jsonl", '"arguments": {"format": "celsius"',
                     f'"arguments": {{"n": {WIDE}, "format": "celsius"')
    store = open_store(f"sqlite:///{tmp_path / 'notes.db'}")
    again = library.load(store, library.save(store, trace, source="upload"))
    assert json.loads(_calls([again])[0].arguments_raw)["n"] == WIDE


def test_a_native_trace_keeps_its_wide_integer():
    data = (catalog.TRACES_DIR / "order-status-anthropic.jsonl").read_bytes()
    written = b'"input": {"order_id": "A-48213"}'
    loaded = catalog.load_bytes(data.replace(written, b'"input": {"n": %d, "order_id": "A-48213"}' % WIDE), "wide")
    assert loaded.problems == ()
    assert json.loads(_calls([loaded.trace])[0].arguments_raw)["n"] == WIDE


def test_the_raw_json_view_shows_a_wide_integer_as_written_not_as_a_browser_rounds_it(app):
    # The browser's JSON.parse, behind st.json, would show 123456789012345680000000000000: the body goes as text.
    # An Anthropic response holds a call's input as an object, so the integer is a number of the body.
    data = (catalog.TRACES_DIR / "order-status-anthropic.jsonl").read_bytes()
    wide = data.replace(b'"input": {"order_id": "A-48213"}', b'"input": {"n": %d, "order_id": "A-48213"}' % WIDE)
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("wide.jsonl", wide).run()
    at.radio(key="explorer.view").set_value("Raw JSON").run()
    assert not at.exception
    assert not [j for j in at.json if str(WIDE) in j.value]
    assert any(f'"n": {WIDE}' in c.value for c in at.code)
