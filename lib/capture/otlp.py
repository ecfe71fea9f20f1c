"""The OTLP/HTTP trace receiver at /v1/traces: protobuf or JSON bodies, decoded with the official
opentelemetry-proto messages and appended to the capture as one OTLP/JSON document per export,
which the span importer (lib/logs/spans.py) reads like an uploaded span file."""

from __future__ import annotations

import base64
import json
import zlib
from typing import AsyncIterator, Callable

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from lib.capture.files import CaptureFile
from lib.logs.limits import gunzipped_at_most
from lib.text import json_said, plural

MAX_BODY = 64 * 1024 * 1024
"""The largest export accepted, after decompression."""

ID_FIELDS = ("traceId", "spanId", "parentSpanId")
"""Span fields OTLP/JSON writes as hex, where protobuf's JSON mapping writes base64."""


class Refused(ValueError):
    """An export the receiver cannot read, with the reason in words."""


class TooLarge(Exception):
    """A body that passed MAX_BODY while it was read."""


async def at_most(chunks: AsyncIterator[bytes], declared: str | None) -> bytes:
    """The body the chunks make up; TooLarge as soon as it (or the length it declares) passes MAX_BODY, so a body
    that large is never held whole."""
    if declared and declared.isdigit() and int(declared) > MAX_BODY:
        raise TooLarge
    received = bytearray()
    async for chunk in chunks:
        received += chunk
        if len(received) > MAX_BODY:
            raise TooLarge
    return bytes(received)


def decoded(body: bytes, content_type: str, encoding: str) -> dict:
    """The OTLP/JSON document an export body holds, protobuf or JSON, gzipped or not."""
    if encoding == "gzip":
        try:
            body = gunzipped_at_most(body, MAX_BODY)
        except (OSError, EOFError, zlib.error) as exc:
            raise Refused(f"the body is not valid gzip ({exc})") from None
    if len(body) > MAX_BODY:
        raise Refused(f"the export is larger than {MAX_BODY // 2**20} MiB")
    if content_type.startswith("application/json"):
        document = _json_document(body)
    else:
        document = _protobuf_document(body)
    return document


def _json_document(body: bytes) -> dict:
    if not body.strip():
        raise Refused("the body is empty: an OTLP/JSON export is a JSON object with a 'resourceSpans' list")
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise Refused(f"the body is not valid JSON ({json_said(exc, 'body')})") from None
    if not isinstance(document, dict) or not isinstance(document.get("resourceSpans", []), list):
        raise Refused("the body is not an OTLP ExportTraceServiceRequest (no 'resourceSpans' list)")
    return document


def _protobuf_document(body: bytes) -> dict:
    try:
        message = ExportTraceServiceRequest.FromString(body)
    except DecodeError as exc:
        raise Refused(f"the body is not an OTLP protobuf ExportTraceServiceRequest ({exc})") from None
    document = MessageToDict(message)
    for resource in document.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for field in ID_FIELDS:
                    if field in span:
                        span[field] = base64.b64decode(span[field]).hex()
    return document


async def receive_traces(request: Request, capture: CaptureFile, say: Callable[[str], None]) -> Response:
    """Take one export: append its spans to the capture and answer as an OTLP collector does."""
    content_type = request.headers.get("content-type", "application/x-protobuf")
    try:
        body = await at_most(request.stream(), request.headers.get("content-length"))
        document = decoded(body, content_type, request.headers.get("content-encoding", ""))
    except TooLarge:
        return JSONResponse({"code": 3, "message": f"the export is larger than {MAX_BODY // 2**20} MiB"}, 413)
    except Refused as exc:
        return JSONResponse({"code": 3, "message": str(exc)}, 400)
    spans = sum(len(s.get("spans", [])) for r in document.get("resourceSpans", []) for s in r.get("scopeSpans", []))
    if spans:
        capture.append(document)
        say(f"recorded an OTLP export of {plural(spans, 'span')}")
    if content_type.startswith("application/json"):
        return JSONResponse({})
    return Response(ExportTraceServiceResponse().SerializeToString(), media_type="application/x-protobuf")
