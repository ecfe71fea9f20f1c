"""The OTLP/HTTP receiver on the proxy's port: a real OpenTelemetry SDK with the OTLP HTTP
exporter (protobuf) sends GenAI spans, and the capture reads back as the conversation they describe."""

import json

import httpx2
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from lib.capture.background import BackgroundProxy
from lib.logs.upload import read_upload

QUESTION = "Where is order A-48213?"


def _turn(role, *parts):
    return {"role": role, "parts": list(parts)}


def _chat_span(tracer, inputs, outputs):
    with tracer.start_as_current_span("chat gpt-4o") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.request.model", "gpt-4o")
        span.set_attribute("gen_ai.input.messages", json.dumps(inputs))
        span.set_attribute("gen_ai.output.messages", json.dumps(outputs))
        span.set_attribute("gen_ai.usage.input_tokens", 42)
        span.set_attribute("gen_ai.usage.output_tokens", 7)


def test_genai_spans_from_the_otel_sdk_are_captured_as_one_conversation(tmp_path):
    capture = tmp_path / "capture.jsonl"
    with BackgroundProxy("http://127.0.0.1:9", capture) as proxy:
        exporter = OTLPSpanExporter(endpoint=proxy.url + "/v1/traces", timeout=10)
        provider = TracerProvider(resource=Resource.create({"service.name": "shop-agent"}))
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = provider.get_tracer("test")
        call = {"type": "tool_call", "id": "call_1", "name": "get_order_status", "arguments": {"order_id": "A-48213"}}
        asked = [_turn("user", {"type": "text", "content": QUESTION})]
        with tracer.start_as_current_span("invoke_agent"):
            _chat_span(tracer, asked, [{**_turn("assistant", call), "finish_reason": "tool_call"}])
            result = {"type": "tool_call_response", "id": "call_1", "response": "shipped on Monday"}
            _chat_span(tracer, asked + [_turn("assistant", call), _turn("tool", result)],
                       [{**_turn("assistant", {"type": "text", "content": "It shipped on Monday."}), "finish_reason": "stop"}])
        provider.shutdown()
    upload = read_upload([(capture.name, capture.read_bytes())])
    assert not upload.problems
    assert set(upload.formats) == {"spans"}
    (conversation,) = upload.conversations
    first, second = conversation.trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_order_status", {"order_id": "A-48213"})]
    assert second.response.message.text == "It shipped on Monday."
    assert first.request.messages[0].text == QUESTION


def test_a_body_that_is_not_an_export_is_refused_in_words(tmp_path):
    capture = tmp_path / "capture.jsonl"
    with BackgroundProxy("http://127.0.0.1:9", capture) as proxy:
        refused = httpx2.post(proxy.url + "/v1/traces", content=b"\xff\x00 not protobuf",
                              headers={"content-type": "application/x-protobuf"})
        bad_json = httpx2.post(proxy.url + "/v1/traces", content=b"[1, 2]", headers={"content-type": "application/json"})
    assert refused.status_code == 400 and "not an OTLP protobuf" in refused.json()["message"]
    assert bad_json.status_code == 400 and "resourceSpans" in bad_json.json()["message"]
    assert capture.read_text() == ""


def test_a_json_body_that_does_not_parse_is_refused_in_our_words_naming_where(tmp_path):
    # The exporter was answered in the parser's words: "the body is not valid JSON (Expecting value: line 1 column 1
    # (char 0))", where every reader of an upload says what is wrong and where in ours.
    capture = tmp_path / "capture.jsonl"
    headers = {"content-type": "application/json"}
    with BackgroundProxy("http://127.0.0.1:9", capture) as proxy:
        said = [httpx2.post(proxy.url + "/v1/traces", content=body, headers=headers).json()["message"]
                for body in (b"not json", b'{"resourceSpans": [', b'{"resourceSpans": [}', b"", b" \n")]
    assert said == [
        "the body is not valid JSON (at character 1 of the body: no JSON value where one should be: NaN, a bare word "
        "or a single-quoted string is none)",
        "the body is not valid JSON (at the end of the body: cut short: the JSON stops before it is complete)",
        "the body is not valid JSON (at character 20 of the body: no JSON value where one should be: NaN, a bare word "
        "or a single-quoted string is none)",
        "the body is empty: an OTLP/JSON export is a JSON object with a 'resourceSpans' list",
        "the body is empty: an OTLP/JSON export is a JSON object with a 'resourceSpans' list"]
    assert capture.read_text() == ""


def test_a_gzip_export_that_opens_past_the_limit_is_refused_without_being_opened_whole(tmp_path):
    import gzip
    import tracemalloc
    bomb = gzip.compress(bytes(256 * 1024 * 1024), 9)  # 256 MiB of zeros in 250 KB
    capture = tmp_path / "capture.jsonl"
    with BackgroundProxy("http://127.0.0.1:9", capture) as proxy:
        tracemalloc.start()
        refused = httpx2.post(proxy.url + "/v1/traces", content=bomb, timeout=30,
                              headers={"content-type": "application/x-protobuf", "content-encoding": "gzip"})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert refused.status_code == 400 and "larger than 64 MiB" in refused.json()["message"]
    assert peak < 100 * 1024 * 1024
    assert capture.read_text() == ""


def test_an_export_over_64_mib_is_refused_as_it_arrives_never_held_whole(tmp_path):
    import tracemalloc

    def a_quarter_gib():  # sent chunk by chunk, without a length: only reading it tells its size
        for _ in range(256):
            yield b" " * 2**20

    capture = tmp_path / "capture.jsonl"
    with BackgroundProxy("http://127.0.0.1:9", capture) as proxy:
        tracemalloc.start()
        refused = httpx2.post(proxy.url + "/v1/traces", content=a_quarter_gib(), timeout=30,
                              headers={"content-type": "application/json"})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert refused.status_code == 413 and refused.json()["message"] == "the export is larger than 64 MiB"
    assert peak < 150 * 2**20
    assert capture.read_text() == ""
