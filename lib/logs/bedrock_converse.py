"""AWS Bedrock Converse bodies as Anthropic Messages bodies.

Converse is close to Messages: a `system` list, `messages` of content blocks, tools under
`toolConfig.tools[].toolSpec` (schema under `inputSchema.json`), a `toolUse` block per call and a
`toolResult` block per result, both keyed by `toolUseId`; the response is
`{"output": {"message"}, "stopReason", "usage": {"inputTokens", ...}, "metrics": {"latencyMs"}}`.
Blocks are keyed by their kind (`{"text": ...}`, `{"toolUse": {...}}`) where Messages writes
`{"type": ...}`; a `citationsContent` block (text citing a document) is a text block with its
`citations`; other kinds (images, documents, cache points, guard content) stay raw under their kind.

Bedrock's model invocation logs (CloudWatch or S3) carry the same bodies under
`input.inputBodyJson` and `output.outputBodyJson`, with the model in `modelId`.

ConverseStream answers in AWS's binary event stream (`application/vnd.amazon.eventstream`): framed
messages whose `:event-type` header names a JSON payload (`messageStart`, `contentBlockStart`,
`contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`). `stream_response` joins them
into the Converse response the same call would have had unstreamed.

InvokeModelWithResponseStream (`/model/<id>/invoke-with-response-stream`) frames the model's own stream the same way:
each `chunk` event's payload is `{"bytes": <base64>}`, one event of the body's own API (Anthropic's `message_start`,
`content_block_delta`, ... for a Messages body). `invoke_stream_events` opens them, for the stream readers of that API.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from typing import Any, Iterator

from lib.logs import chat_shape as convert
from lib.logs.record import CallRecord, LineProblem
from lib.logs.provider_pairs import ProviderPairFormat, error_body, text_of
from lib.text import json_said

BLOCK_KEYS = ("text", "toolUse", "toolResult", "image", "document", "video", "reasoningContent", "cachePoint",
              "guardContent", "citationsContent")
"""The kinds of Converse content blocks (each block has exactly one of these keys)."""

STOP_REASONS = {"guardrail_intervened": "refusal", "content_filtered": "refusal"}
"""`stopReason` values Messages spells differently; the rest (end_turn, tool_use, max_tokens, ...) are the same."""

INFERENCE_SETTINGS = {"maxTokens": "max_tokens", "temperature": "temperature", "topP": "top_p",
                      "stopSequences": "stop_sequences"}
"""`inferenceConfig` keys as Messages request keys."""


def _is_block(block: Any) -> bool:
    return isinstance(block, dict) and "type" not in block and any(k in block for k in BLOCK_KEYS)


def _is_request(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return False
    if any(k in body for k in ("toolConfig", "inferenceConfig", "modelId", "additionalModelRequestFields")):
        return True
    # Blocks keyed by kind are Converse's alone; the last messages hold them if any do.
    for message in body["messages"][-4:]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and content and all(_is_block(b) for b in content):
            return True
    return False


def _is_response(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(convert.object_at(body, "output").get("message"), dict) \
        and ("stopReason" in body or "usage" in body)


def _invocation(obj: dict) -> tuple[Any, Any] | None:
    """(request, response) of a model invocation log record, or None for any other line."""
    inner_input, inner_output = obj.get("input"), obj.get("output")
    if isinstance(inner_input, dict) and "inputBodyJson" in inner_input and "modelId" in obj:
        return inner_input.get("inputBodyJson"), (inner_output or {}).get("outputBodyJson") if isinstance(inner_output, dict) else None
    return None


class BedrockConverseFormat(ProviderPairFormat):
    """Bedrock Converse requests and responses, paired, alone, or in model invocation logs."""

    name = "bedrock-converse"
    title = "AWS Bedrock Converse"
    request_key = "messages"
    response_key = "output"
    generic_requests = False

    def own_error(self, body: Any) -> bool:
        # AWS's: {"message": ...} (with its '__type' where the SDK kept it), or {"Error": {"Code", "Message"}}.
        return isinstance(body, dict) and "error" not in body and error_body(body) is not None

    def is_request(self, body: Any) -> bool:
        return _is_request(body)

    def is_response(self, body: Any) -> bool:
        return _is_response(body)

    def detect(self, obj: dict) -> str | None:
        invocation = _invocation(obj)
        if invocation is not None:
            return "a Bedrock model invocation log record (input.inputBodyJson, output.outputBodyJson)" \
                if _is_request(invocation[0]) or _is_response(invocation[1]) else None
        return super().detect(obj)

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        invocation = _invocation(obj)
        if invocation is None:
            yield from super().feed(obj, line)
            return
        request, response = invocation
        if not isinstance(request, dict):
            raise LineProblem(f"input.inputBodyJson is {convert.describe(request)}, expected a Converse request")
        if response is not None and not _is_response(response):
            raise LineProblem("output.outputBodyJson is not a Converse response (output.message and stopReason)")
        record = self.record({"modelId": obj["modelId"], **request}, response, line, obj)
        record.timestamp = text_of(obj.get("timestamp"))
        yield record

    def record(self, request: dict | None, response: Any, line: int, obj: dict) -> CallRecord:
        model = text_of(obj.get("modelId")) or text_of((request or {}).get("modelId"))
        metrics = convert.object_at(response or {}, "metrics")
        return CallRecord(
            line=line, dialect="anthropic-messages",
            request=None if request is None else _messages_request(request, model),
            response=None if response is None else _messages_response(response, model),
            converted_from=self.name, latency_ms=metrics.get("latencyMs") if isinstance(metrics.get("latencyMs"), (int, float)) else None,
        )


def _messages_request(request: dict, model: str | None) -> dict:
    """The Messages request a Converse request amounts to."""
    body: dict = {}
    if model:
        body["model"] = model
    settings = convert.object_at(request, "inferenceConfig")
    body.update({ours: settings[theirs] for theirs, ours in INFERENCE_SETTINGS.items() if theirs in settings})
    system = request.get("system")
    if isinstance(system, list):
        blocks = [_block(b, f"system[{i}]") for i, b in enumerate(system)]
        if blocks:
            body["system"] = blocks
    body["messages"] = [_message(m, f"messages[{i}]") for i, m in enumerate(convert.require(request, "messages", list))]
    tool_config = convert.object_at(request, "toolConfig")
    tools = tool_config.get("tools")
    if isinstance(tools, list):
        body["tools"] = [_tool(t) for t in tools]
    choice = convert.object_at(tool_config, "toolChoice")
    if choice:
        kind = next(iter(choice))
        body["tool_choice"] = {"type": kind, **choice[kind]} if isinstance(choice[kind], dict) else {"type": kind}
    return body


def _message(message: Any, where: str) -> dict:
    if not isinstance(message, dict):
        raise LineProblem(f"{where} is {convert.describe(message)}, expected a message object")
    content = message.get("content")
    if not isinstance(content, list):
        raise LineProblem(f"{where}.content is {convert.describe(content)}, expected a list of blocks")
    return {"role": message.get("role"), "content": [_block(b, f"{where}.content[{i}]") for i, b in enumerate(content)]}


def _block(block: Any, where: str) -> dict:
    """One Converse block as a Messages block."""
    if not isinstance(block, dict):
        raise LineProblem(f"{where} is {convert.describe(block)}, expected a content block")
    if isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    use, result, reasoning = block.get("toolUse"), block.get("toolResult"), block.get("reasoningContent")
    if isinstance(use, dict):
        # A system tool's use (Nova's `nova_grounding`) is typed `server_tool_use`: Bedrock ran it inside the turn, as
        # Anthropic runs its server tools, and nothing is owed for it; the program's own calls carry no type.
        kind = "server_tool_use" if use.get("type") == "server_tool_use" else "tool_use"
        return {"type": kind, "id": use.get("toolUseId"), "name": use.get("name"), "input": use.get("input")}
    if isinstance(result, dict):
        content = result.get("content")
        # What the system tool found (typed after it, `nova_grounding_result`) stays a block of that type.
        converted: dict = {"type": text_of(result.get("type")) or "tool_result", "tool_use_id": result.get("toolUseId"),
                           "content": [_result_block(c) for c in content] if isinstance(content, list) else content}
        if result.get("status") == "error":
            converted["is_error"] = True
        return converted
    if isinstance(reasoning, dict) and isinstance(reasoning.get("reasoningText"), dict):
        text = reasoning["reasoningText"]
        return {"type": "thinking", "thinking": text.get("text"), "signature": text.get("signature")}
    cited = block.get("citationsContent")
    if isinstance(cited, dict) and isinstance(cited.get("content"), list):
        # Text the model wrote citing a document: a Messages text block with its citations.
        said = "".join(str(c["text"]) for c in cited["content"] if isinstance(c, dict) and "text" in c)
        return {"type": "text", "text": said, "citations": cited.get("citations") or []}
    kind = next((k for k in BLOCK_KEYS if k in block), next(iter(block), "block"))
    return {"type": kind, **block}


def _result_block(block: Any) -> Any:
    """A toolResult content block: text stays text, a JSON value becomes its text."""
    if isinstance(block, dict) and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if isinstance(block, dict) and "json" in block:
        return {"type": "text", "text": json.dumps(block["json"], ensure_ascii=False)}
    return block


def _tool(tool: Any) -> Any:
    spec = tool.get("toolSpec") if isinstance(tool, dict) else None
    system = tool.get("systemTool") if isinstance(tool, dict) else None
    if isinstance(system, dict):
        # A tool Bedrock runs itself (Nova's web grounding): a Messages server tool, typed, named as offered.
        return {"type": "systemTool", "name": system.get("name")}
    if not isinstance(spec, dict):
        return tool  # a cachePoint: kept as sent
    return {"name": spec.get("name"), "description": spec.get("description"),
            "input_schema": convert.object_at(spec, "inputSchema").get("json")}


def _messages_response(response: dict, model: str | None) -> dict:
    """The Messages response a Converse response amounts to."""
    message = _message(response["output"]["message"], "output.message")
    usage = convert.object_at(response, "usage")
    body: dict = {"type": "message", "role": "assistant", "content": message["content"]}
    if model:
        body["model"] = model
    reason = text_of(response.get("stopReason"))
    body["stop_reason"] = STOP_REASONS.get(reason, reason) if reason else None
    # A usage without outputTokens (Nova's answer under a guardrail that masked it) says nothing of the output: the
    # round's usage is counted, not reported as 0 tokens out.
    if "inputTokens" in usage and "outputTokens" in usage:
        body["usage"] = {"input_tokens": convert.as_int(usage.get("inputTokens")) or 0,
                         "output_tokens": convert.as_int(usage.get("outputTokens")) or 0,
                         "cache_read_input_tokens": convert.as_int(usage.get("cacheReadInputTokens")) or 0,
                         "cache_creation_input_tokens": convert.as_int(usage.get("cacheWriteInputTokens")) or 0}
    return body


HEADER_VALUE_SIZES = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
"""Event stream header value types of a fixed size (bools, integers, timestamp, uuid); 6 and 7 (bytes, string)
carry a two-byte length."""


def _stream_messages(data: bytes) -> Iterator[tuple[dict[str, Any], bytes]]:
    """(headers, payload) of each message of an AWS event stream; LineProblem where the framing breaks."""
    position = 0
    while position < len(data):
        if len(data) - position < 16:
            raise LineProblem(f"the event stream ends inside a message's frame (byte {position:,})")
        total, headers_length = struct.unpack_from(">II", data, position)
        end = position + total
        if total < 16 + headers_length or end > len(data):
            raise LineProblem(f"the event stream's message at byte {position:,} says it is {total:,} bytes long, "
                              "which does not fit the stream")
        headers_end = position + 12 + headers_length
        yield _headers(data[position + 12:headers_end], position), data[headers_end:end - 4]
        position = end


def _headers(data: bytes, position: int) -> dict[str, Any]:
    """An event stream message's headers (`data`: their bytes; `position`: the message's, for problems)."""
    headers: dict[str, Any] = {}
    at = 0
    try:
        while at < len(data):
            name_length = data[at]
            name = data[at + 1:at + 1 + name_length].decode("utf-8", "replace")
            kind, at = data[at + 1 + name_length], at + 2 + name_length
            if kind in (6, 7):
                size = struct.unpack_from(">H", data, at)[0]
                value: Any = data[at + 2:at + 2 + size]
                headers[name], at = value.decode("utf-8", "replace") if kind == 7 else value, at + 2 + size
            elif kind in HEADER_VALUE_SIZES:
                headers[name], at = kind == 0, at + HEADER_VALUE_SIZES[kind]
            else:
                raise LineProblem(f"the event stream's message at byte {position:,} has a header of unknown "
                                  f"type {kind}")
    except (IndexError, struct.error) as exc:
        raise LineProblem(f"the event stream's message at byte {position:,} has headers cut short") from exc
    return headers


def _objects(data: bytes) -> Iterator[tuple[dict, dict]]:
    """Each event-stream message's headers and its JSON payload, where that is an object (others carry nothing)."""
    for headers, payload in _stream_messages(data):
        try:
            message = json.loads(payload) if payload else {}
        except ValueError as exc:
            raise LineProblem(f"an event stream message's payload is not valid JSON ({json_said(exc, 'payload')})") from exc
        if isinstance(message, dict):
            yield headers, message


def _exception_words(headers: dict, message: dict) -> str:
    """What AWS said of the exception a stream ended with."""
    return str(message.get("message") or headers.get(":exception-type") or "the stream failed")


def invoke_stream_events(data: bytes) -> list[dict]:
    """The events an InvokeModelWithResponseStream body carries, each `chunk`'s base64 `bytes` opened: its body API's
    stream events, in order. An exception the stream ended with is an `error` event with AWS's words."""
    events: list[dict] = []
    for headers, message in _objects(data):
        if headers.get(":message-type") == "exception":
            events.append({"type": "error", "error": {"type": str(headers.get(":exception-type") or "exception"),
                                                      "message": _exception_words(headers, message)}})
            continue
        if headers.get(":event-type") != "chunk" or not isinstance(message.get("bytes"), str):
            continue
        try:
            event = json.loads(base64.b64decode(message["bytes"], validate=True))
        except (binascii.Error, ValueError) as exc:
            raise LineProblem(f"an event stream chunk's bytes are not base64 JSON ({exc})") from exc
        # Bedrock's own figures, which it adds to a model's last event (Claude's `message_stop`) or, for a Chat
        # Completions stream (AI21's Jamba), sends as a chunk of their own: no event of the body API's stream.
        if isinstance(event, dict) and not (len(event) == 1 and INVOCATION_METRICS in event):
            events.append(event)
    return events


INVOCATION_METRICS = "amazon-bedrock-invocationMetrics"
"""The key under which Bedrock puts its own counts and latencies into an InvokeModelWithResponseStream chunk."""


STREAM_EVENTS = ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop",
                 "metadata")
"""The events of a Converse stream, named by the `:event-type` header in ConverseStream and by their one key in the
chunks of a Converse-shaped body's InvokeModelWithResponseStream (Amazon Nova)."""


def stream_response(data: bytes) -> dict | None:
    """The Converse response a ConverseStream body amounts to: its blocks joined in order, the stop reason, usage
    and metrics; an exception the stream ended with, as its body (`{"message": ...}`); None for no event."""
    events = []
    for headers, event in _objects(data):
        if headers.get(":message-type") == "exception":
            return {"message": _exception_words(headers, event)}
        events.append((headers.get(":event-type"), event))
    return _joined(events) if events else None


def invoke_stream_response(data: bytes) -> dict | None:
    """The Converse response a Converse-shaped body's InvokeModelWithResponseStream amounts to (Amazon Nova's: each
    chunk one event under its name). Nova may stream each piece of text as a block of its own; its unstreamed answer
    is one text, so text blocks that follow one another are joined."""
    events = []
    for event in invoke_stream_events(data):
        if event.get("type") == "error":
            return {"message": event["error"]["message"]}
        kind = next((k for k in STREAM_EVENTS if isinstance(event.get(k), dict)), None)
        if kind is not None:
            events.append((kind, event[kind]))
    return _joined(events, one_text=True) if events else None


def _joined(events: list[tuple[Any, dict]], one_text: bool = False) -> dict:
    """The response a stream's (kind, event) pairs amount to; `one_text` joins text blocks that follow one another."""
    blocks: dict[int, dict] = {}
    response: dict = {"output": {"message": {"role": "assistant", "content": []}}, "stopReason": None}
    for kind, event in events:
        index = convert.as_int(event.get("contentBlockIndex")) or 0
        if one_text and kind == "contentBlockDelta" and "text" in convert.object_at(event, "delta") and blocks:
            last = max(blocks)
            index = last if "text" in blocks[last] and index not in blocks else index
        if kind == "messageStart" and isinstance(event.get("role"), str):
            response["output"]["message"]["role"] = event["role"]
        elif kind == "contentBlockStart" and isinstance(convert.object_at(event, "start").get("toolUse"), dict):
            blocks[index] = {"toolUse": {**event["start"]["toolUse"], "input": ""}}
        elif kind == "contentBlockStart" and isinstance(convert.object_at(event, "start").get("toolResult"), dict):
            blocks[index] = {"toolResult": dict(event["start"]["toolResult"])}  # a system tool's, whole at its start
        elif kind == "contentBlockDelta":
            _add_delta(blocks, index, convert.object_at(event, "delta"))
        elif kind == "messageStop":
            response["stopReason"] = event.get("stopReason")
        elif kind == "metadata":
            response.update({k: event[k] for k in ("usage", "metrics") if isinstance(event.get(k), dict)})
    for block in blocks.values():
        use = block.get("toolUse")
        if isinstance(use, dict) and isinstance(use.get("input"), str):
            try:  # the input arrives as pieces of JSON text; a stream cut short leaves it as text
                use["input"] = json.loads(use["input"] or "{}")
            except ValueError:
                pass
    response["output"]["message"]["content"] = [blocks[i] for i in sorted(blocks)]
    return response


def _add_delta(blocks: dict[int, dict], index: int, delta: dict) -> None:
    """One contentBlockDelta added to the block it continues."""
    kind = next((k for k in ("text", "toolUse", "reasoningContent") if k in delta), None)
    if kind is None:
        return
    block = blocks.setdefault(index, {"text": ""} if kind == "text" else
                              {"toolUse": {"input": ""}} if kind == "toolUse" else
                              {"reasoningContent": {"reasoningText": {"text": ""}}})
    if kind not in block:
        raise LineProblem(f"content block {index} of the event stream gets a {kind} delta, but it is not a "
                          f"{kind} block")
    piece = delta[kind]
    if kind == "text":
        block["text"] += str(piece or "")
    elif kind == "toolUse":
        more = convert.object_at(delta, kind).get("input")
        block["toolUse"]["input"] = str(block["toolUse"].get("input") or "") + str(more or "")
    else:
        said, piece = block["reasoningContent"]["reasoningText"], convert.object_at(delta, kind)
        said["text"] = str(said.get("text") or "") + str(piece.get("text") or "")
        if isinstance(piece.get("signature"), str):
            said["signature"] = piece["signature"]
