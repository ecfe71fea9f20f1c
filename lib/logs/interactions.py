"""Google Gemini's Interactions API (`POST /v1beta/interactions`) bodies and streams, as Chat Completions.

A request has `model` (or an `agent`), `input` (text, a list of content items, or a list of steps: `user_input` and
`model_output` holding content, `function_call`, `function_result`; the API's first revision wrote turns with a `role`
instead), `system_instruction`, `tools` (`{"type": "function", "name", "description", "parameters"}` and built-in ones)
and `generation_config`. The answer is an interaction: its `id`, `status` (`completed`, `requires_action` when it
waits for tool results, `incomplete`, `failed`, `in_progress`), its `steps` (`thought`, `model_output`,
`function_call`, a built-in tool's call and result; `outputs` in the first revision) and `usage` (`total_input_tokens`,
`total_output_tokens`, `total_thought_tokens` apart from the output's).

The API keeps the conversation itself: a request that names `previous_interaction_id` sends only what is new (the
results of the calls the earlier interaction asked for, or the next question). The history is rebuilt here by joining
on that id, as lib/logs/responses.py does for `previous_response_id`, and the chain's first interaction id names the
conversation. A stream (`interaction.created`, then `step.start` / `step.delta` / `step.stop` per step, and
`interaction.completed` with the status and usage but no steps) is joined into the interaction it delivered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from lib.intern import nests_deeper
from lib.logs import chat_shape as convert
from lib.logs.provider_pairs import ProviderPairFormat, text_of
from lib.logs.record import CallRecord, LineProblem

REQUEST_KEYS = ("previous_interaction_id", "system_instruction", "generation_config", "response_modalities",
                "agent_config", "agent")
"""Keys only an Interactions request has (a Responses request spells them `previous_response_id`, `instructions`)."""

STEP_TYPES = ("user_input", "model_output", "function_result")
"""Input step types no other API's items have (a Responses item may be a `function_call` too)."""

GENERATION_SETTINGS = {"temperature": "temperature", "top_p": "top_p", "max_output_tokens": "max_completion_tokens",
                       "stop_sequences": "stop", "seed": "seed"}
"""`generation_config` keys that mean the same as a Chat Completions request key."""

FINISHES = {"completed": "stop", "requires_action": "tool_calls", "incomplete": "length", "cancelled": "cancelled"}
"""An interaction's `status` as a Chat Completions finish_reason (a completed one that asks for calls: tool_calls)."""

RUNNING = ("in_progress", "queued")
"""Statuses of an interaction the model has not finished: started with `background: true`, answered later."""

HELD_TOOLS_NOTE = ("This request names the interaction before it (`previous_interaction_id`) and sends no tools of "
                   "its own. The tool definitions shown are those sent earlier in the conversation, which the "
                   "provider keeps with it: they were not in this request's bytes. (The input the provider reports "
                   "for such a call in the recordings we have counts them again.)")
"""The note on a call whose tools are the earlier interaction's, held by the provider."""

RUNNING_NOTE = ("The program started this interaction in the background (`background: true`): the recording holds "
                "its answer as still running, not what the model went on to answer, which the program fetched "
                "later by the interaction's id, if at all.")
"""The note on a call whose answer in the log is an interaction still running."""


@dataclass
class _Link:
    """What an interaction leaves for the request that names it as `previous_interaction_id`."""

    conversation: str
    """The conversation it belongs to: the chain's first interaction id."""
    history: list[dict]
    """The Chat Completions messages so far, its own answer last."""
    tools: list | None
    """The tools the model had for it, as Chat Completions tools: sent with it, or held from the one before."""


def is_request(body: Any) -> bool:
    """An Interactions request: `input` beside a key or an input step only this API has."""
    if not isinstance(body, dict) or "input" not in body or any(k in body for k in ("messages", "contents")):
        return False
    if any(k in body for k in REQUEST_KEYS):
        return True
    items = body["input"]
    return isinstance(items, list) and any(
        isinstance(i, dict) and (i.get("type") in STEP_TYPES or i.get("role") == "model") for i in items)


def is_response(body: Any) -> bool:
    """An interaction: the object the API answers with (and ends its stream with)."""
    return isinstance(body, dict) and body.get("object") == "interaction"


class InteractionsFormat(ProviderPairFormat):
    """Gemini Interactions API requests and interactions, streamed or whole, each chained on the one it names."""

    name = "gemini-interactions"
    title = "Gemini Interactions API"
    request_key = "input"
    response_key = "steps"
    generic_requests = False

    def __init__(self) -> None:
        self._links: dict[str, _Link] = {}

    def own_error(self, body: Any) -> bool:
        # Google's {"error": {"code": "not_found" or 404, "message", "status"?}}; an OpenAI-style error has a 'type'.
        inner = body.get("error") if isinstance(body, dict) else None
        return isinstance(inner, dict) and isinstance(inner.get("message"), str) and "type" not in inner \
            and ("code" in inner or "status" in inner)

    def is_request(self, body: Any) -> bool:
        return is_request(body)

    def is_response(self, body: Any) -> bool:
        return is_response(body)

    def record(self, request: dict | None, response: Any, line: int, obj: dict) -> CallRecord:
        link, conversation = self._history(request)
        history = list(link.history) if link is not None else []
        own = _messages(request) if request is not None else []
        if own[:1] and own[0]["role"] == "system" and history[:1] and history[0]["role"] == "system":
            history = history[1:]  # the request's own instruction in place of the one held
        messages = own[:1] + history + own[1:] if own[:1] and own[0]["role"] == "system" else history + own
        chat_request = _chat_request(request, messages) if request is not None else None
        provenance, tools_held = None, False
        if chat_request is not None and "tools" not in request and link is not None and link.tools:
            chat_request["tools"] = link.tools
            provenance, tools_held = {"origin": "completed", "note": HELD_TOOLS_NOTE}, True
        chat_response, running = None, False
        if response is not None:
            running = text_of(response.get("status")) in RUNNING and not _steps(response)
            chat_response = None if running else _chat_response(response)
        opens = None
        if chat_response is not None:
            answer = chat_response["choices"][0]["message"]
            named = text_of(response.get("id"))
            if conversation is None:
                # A first interaction: its id names the chain that goes on from it by `previous_interaction_id`.
                # Logged with its request, it is a name only, so that a program that resends the whole history
                # instead (`store: false`) is still chained on content by the upload.
                opens = named
                conversation = named if request is None else None
            if named is not None:
                self._links[named] = _Link(conversation or opens or named, messages + [answer],
                                           (chat_request or {}).get("tools"))
        return CallRecord(
            line=line, dialect="openai-chat", request=chat_request, response=chat_response,
            conversation=conversation, name=opens, converted_from=self.name,
            held_by_provider=len(history) if request is not None else 0,
            held_system=bool(history) and history[0].get("role") == "system",
            timestamp=text_of((response or {}).get("created")),
            provenance={"origin": "recorded", "note": RUNNING_NOTE} if running else provenance, tools_held=tools_held,
        )

    def _history(self, request: dict | None) -> tuple[_Link | None, str | None]:
        """What the provider holds before this request's input (the interaction it names, if in the log), and the
        conversation it continues."""
        previous = text_of((request or {}).get("previous_interaction_id"))
        if not previous:
            return None, None
        # An earlier interaction not in this upload: its id is the best name for the chain.
        link = self._links.get(previous)
        return link, link.conversation if link is not None else previous


# --- requests --------------------------------------------------------------------------------


def _chat_request(request: dict, messages: list[dict]) -> dict:
    """The Chat Completions request an Interactions request amounts to, its history rebuilt (`messages`)."""
    body: dict = {}
    model = request.get("model", request.get("agent"))
    if isinstance(model, str):
        body["model"] = model
    body["messages"] = messages
    tools = request.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise LineProblem(f"'tools' is {convert.describe(tools)}, expected a list")
        body["tools"] = [_tool(tool, position) for position, tool in enumerate(tools)]
    settings = convert.object_at(request, "generation_config")
    choice = settings.get("tool_choice")
    if isinstance(choice, str):
        body["tool_choice"] = {"any": "required"}.get(choice, choice)
    body.update({ours: settings[theirs] for theirs, ours in GENERATION_SETTINGS.items() if theirs in settings})
    return body


def _messages(request: dict) -> list[dict]:
    """The request's own messages: its system instruction, then its input as turns."""
    system = request.get("system_instruction")
    if isinstance(system, dict) or isinstance(system, list):
        system = "\n".join(p for p in _texts(system))
    messages = [{"role": "system", "content": system}] if isinstance(system, str) and system else []
    return messages + convert.chat_messages(_turns(request.get("input")))


def _texts(content: Any) -> Iterator[str]:
    """The text of a content item or a list of them."""
    for item in content if isinstance(content, list) else [content]:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            yield item["text"]
        elif isinstance(item, str):
            yield item


def _turns(items: Any) -> list[tuple[str, list]]:
    """`input` as (role, parts) turns: adjacent items of one side make one turn, as the model reads them."""
    if items is None:
        return []
    if isinstance(items, str):
        return [("user", [convert.text_part(items)])]
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise LineProblem(f"'input' is {convert.describe(items)}, expected text or a list")
    turns: list[tuple[str, list]] = []
    for position, item in enumerate(items):
        where = f"input[{position}]"
        if not isinstance(item, (dict, str)):
            raise LineProblem(f"{where} is {convert.describe(item)}, expected an object")
        role, parts = _item(item, where)
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(parts)
        else:
            turns.append((role, parts))
    return turns


def _item(item: dict | str, where: str) -> tuple[str, list]:
    """One input item as a side (user or assistant) and its parts."""
    if isinstance(item, str):
        return "user", [convert.text_part(item)]
    kind = item.get("type")
    if "role" in item and kind is None:  # the first revision's turns
        return ("assistant" if item["role"] == "model" else "user"), _content(item.get("content"), where)
    if kind == "user_input":
        return "user", _content(item.get("content"), where)
    if kind == "model_output":
        return "assistant", _content(item.get("content"), where)
    if kind in ("function_call", "function_result"):
        return ("assistant" if kind == "function_call" else "user"), _content([item], where)
    if kind == "thought":
        return "assistant", [item]
    return "user", _content([item], where)


def _content(content: Any, where: str) -> list:
    """Content items as parts: text, calls and results in the common part shape; images and the rest raw."""
    if isinstance(content, str):
        return [convert.text_part(content)]
    if content is None:
        return []
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        raise LineProblem(f"{where}.content is {convert.describe(content)}, expected a list of content items")
    parts: list = []
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "text" and isinstance(item.get("text"), str):
            parts.append(convert.text_part(item["text"]))
        elif kind == "function_call":
            parts.append(convert.tool_call_part(item.get("id"), item.get("name"), item.get("arguments") or {}))
        elif kind == "function_result":
            parts.append(convert.tool_result_part(item.get("call_id"), _result(item.get("result"))))
        else:
            parts.append(item)
    return parts


def _result(result: Any) -> Any:
    """A function result as the model reads it: text items' text, anything else as sent."""
    if isinstance(result, list) and result and all(isinstance(i, dict) and i.get("type") == "text" for i in result):
        return "".join(i.get("text") or "" for i in result)
    return result


def _tool(tool: Any, position: int) -> Any:
    """A function tool as Chat Completions'; a built-in tool (google_search, code_execution, an MCP server) raw."""
    if not isinstance(tool, dict):
        raise LineProblem(f"tools[{position}] is {convert.describe(tool)}, expected an object")
    if tool.get("type") == "function":
        return convert.function_tool(tool.get("name"), tool.get("description"), tool.get("parameters"))
    return tool


# --- responses -------------------------------------------------------------------------------


def _steps(response: dict) -> list:
    """What the model did, in order: `steps`, or the first revision's `outputs`."""
    steps = response.get("steps", response.get("outputs"))
    if steps is None:
        return []
    if not isinstance(steps, list):
        raise LineProblem(f"the interaction's steps are {convert.describe(steps)}, expected a list")
    return steps


def _chat_response(response: dict) -> dict:
    """The chat.completion body an interaction amounts to."""
    parts: list = []
    for position, step in enumerate(_steps(response)):
        where = f"steps[{position}]"
        if not isinstance(step, dict):
            raise LineProblem(f"{where} is {convert.describe(step)}, expected an object")
        kind = step.get("type")
        if kind == "model_output":
            parts.extend(_content(step.get("content"), where))
        elif kind in ("function_call", "text"):
            parts.extend(_content([step], where))
        else:
            parts.append(step)  # thoughts and built-in tools' calls and results: shown raw
    messages = convert.chat_message("assistant", parts)
    message = messages[-1] if messages else {"role": "assistant", "content": ""}
    status = text_of(response.get("status"))
    finish = "tool_calls" if message.get("tool_calls") and status in ("completed", "requires_action") \
        else FINISHES.get(status, status) if status is not None else None
    usage = convert.object_at(response, "usage")
    thoughts = convert.as_int(usage.get("total_thought_tokens"))
    output = convert.as_int(usage.get("total_output_tokens"))
    return convert.chat_completion(
        message, finish, id=response.get("id"), model=response.get("model", response.get("agent")),
        usage=convert.chat_usage(usage.get("total_input_tokens"),
                                 None if output is None and thoughts is None else (output or 0) + (thoughts or 0),
                                 cached=usage.get("total_cached_tokens"), reasoning=thoughts),
    )


def joined_events(events: list[dict]) -> dict | None:
    """The interaction a stream's events delivered: the last interaction they carried (its status and usage), with
    the steps the step events built; None when no event carried an interaction."""
    interaction: dict | None = None
    steps: dict[int, dict] = {}
    arguments: dict[int, str] = {}
    """A call's arguments as streamed so far, by step: JSON text in pieces, read once the stream is over."""
    for event in events:
        kind = event.get("event_type")
        carried = event.get("interaction")
        if isinstance(carried, dict):
            interaction = {**(interaction or {}), **carried}
        elif kind == "interaction.status_update" and interaction is not None and isinstance(event.get("status"), str):
            interaction["status"] = event["status"]
        index = event.get("index")
        if not isinstance(index, int):
            continue
        if kind in ("step.start", "content.start"):
            started = event.get("step", event.get("content"))
            steps[index] = dict(started) if isinstance(started, dict) else {}
        elif kind in ("step.delta", "content.delta") and isinstance(event.get("delta"), dict):
            delta = event["delta"]
            if delta.get("type") == "arguments_delta" and isinstance(delta.get("arguments"), str):
                arguments[index] = arguments.get(index, "") + delta["arguments"]
            else:
                _add_delta(steps.setdefault(index, {}), delta, first_revision=kind == "content.delta")
    if interaction is None:
        return None
    for index, text in arguments.items():
        steps.setdefault(index, {})["arguments"] = text if nests_deeper(text) else convert.json_or_text(text)
    if steps and not interaction.get("steps") and not interaction.get("outputs"):
        interaction["outputs" if "content.start" in {e.get("event_type") for e in events} else "steps"] = [
            steps[i] for i in sorted(steps)]
    return interaction


def _add_delta(step: dict, delta: dict, first_revision: bool) -> None:
    """One delta into the step it belongs to: text appended, a thought's signature or summary kept, anything else
    kept raw under `deltas`."""
    kind = delta.get("type")
    if kind == "text" and isinstance(delta.get("text"), str):
        if first_revision:
            step.setdefault("type", "text")
            step["text"] = (step.get("text") or "") + delta["text"]
            return
        content = step.setdefault("content", [])
        if content and isinstance(content[-1], dict) and content[-1].get("type") == "text":
            content[-1] = {**content[-1], "text": (content[-1].get("text") or "") + delta["text"]}
        else:
            content.append({"type": "text", "text": delta["text"]})
    elif kind == "thought_signature":
        step["signature"] = delta.get("signature")
    elif kind == "thought_summary" and isinstance(delta.get("content"), dict):
        step.setdefault("summary", []).append(delta["content"])
    else:
        step.setdefault("deltas", []).append(delta)
