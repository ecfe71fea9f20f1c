"""What "the same model" means: the view of a round that a conversion to the other dialect and
back must keep. The tests compare every bundled round by it; docs/architecture.md ("Dialects")
says what it leaves out and why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lib.dialects.common import EMPTY_SCHEMA, texts_of
from lib.model import JSON, Message, Request, Response, Stop


@dataclass(frozen=True, slots=True)
class ModelView:
    """What a round says, whatever dialect wrote it: the part of the model a conversion must keep.

    Message boundaries are each dialect's packaging (one `tool` message per result in Chat
    Completions, all results in one user message in Messages), so the conversation is compared
    as the flat sequence the model reads. Within one message the order is results, texts, calls:
    Chat Completions keeps text and calls in separate fields, so their order inside a turn cannot
    survive and is not compared.
    """

    model: str | None
    """The model asked for."""
    system: tuple[str, ...]
    """The system prompt's texts, wherever the dialect puts them."""
    conversation: tuple[tuple, ...]
    """Each text (`text`, role, text), call (`call`, id, name, parsed arguments) and result (`result`, call id, content)."""
    tools: tuple[tuple[str, str, JSON], ...]
    """Each tool's name, description and arguments schema (none means an empty object schema)."""
    output_schema: JSON | None
    """The schema the answer must follow (Request.output_schema), or None."""
    answer: tuple[tuple, ...] | None
    """The response's texts and calls as in `conversation`, or None without a response."""
    stop: Stop | None
    """The normalized stop signal (a refusal and a content filter count as one: each dialect has one of them)."""
    usage: tuple[int, int, int] | None
    """Reported input (cache included), output and cache-read tokens, or None."""


def message_items(message: Message) -> list[tuple]:
    """A message as the model reads it: its results, texts and calls, in that order (see ModelView)."""
    role = "user" if message.role == "tool" else message.role
    items: list[tuple] = [("result", r.call_id, r.content) for r in message.tool_results]
    items += [("text", role, t) for t in texts_of(message)]
    items += [("call", c.id, c.name, c.arguments) for c in message.tool_calls]
    return items


def model_view(request: Request, response: Response | None) -> ModelView:
    """The round as the dialect-neutral view two conversions are compared by."""
    system = texts_of(request.system) if request.system is not None else []
    conversation: list[tuple] = []
    for message in request.messages:
        if message.role in ("system", "developer"):
            system.extend(texts_of(message))
        else:
            conversation.extend(message_items(message))
    tools = tuple((t.name, t.description, t.parameters if t.parameters is not None else EMPTY_SCHEMA)
                  for t in request.tools)
    usage = response.usage if response is not None else None
    stop = response.stop if response is not None else None
    return ModelView(
        model=request.model,
        system=tuple(system),
        conversation=tuple(conversation),
        tools=tools,
        output_schema=request.output_schema,
        answer=tuple(message_items(response.message)) if response is not None else None,
        stop="refusal" if stop == "content_filter" else stop,
        usage=(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) if usage else None,
    )




# --- one conversation sent on in another API's format ---------------------------------------------


def first_item(request: Request) -> tuple | None:
    """The first thing a request's conversation says, past its instructions (see `message_items`): what a request that
    resends its history in another format is looked up by."""
    for message in request.messages:
        if message.role not in ("system", "developer"):
            items = _said(message_items(message))
            if items:
                return item_key(items[0])
    return None


def said_history(request: Request) -> tuple[tuple[str, ...], list[tuple]]:
    """A request's instructions and what its conversation says, as `goes_on_from` compares them."""
    view = model_view(request, None)
    return view.system, _said(view.conversation)


def history_end(request: Request) -> tuple[int, tuple]:
    """Where a request's history ends as `goes_on_from` reads it: how many items it says, and its instructions with
    the last item's index key. A request goes on from another only if it says at least as many items and reads alike
    at that place."""
    system, said = said_history(request)
    return len(said), (item_key(said[-1]) if said else None, system)


def goes_on_from(before: Request, answer: Response | None, after: Request, by_id: bool = True) -> bool:
    """Whether `after` sends `before`'s conversation again as the model reads it, whatever format either is written
    in, and then `answer` and more, or (the same request asked again) nothing more: under the same instructions, each
    text alike, each call by its id, name and arguments, each result by its call's id and content (`by_id` False: by
    name, arguments and content alone, where a provider gave its calls no id and the importer made them up).

    A program that sends on history written by another provider's model rewrites its thinking, which no other API
    reads, as text (pydantic-ai: `<thinking>...</thinking>`): a text of the model's in place of the answer that holds
    the answer's thinking is taken for that thinking. Nothing else is: two conversations that share their instructions
    and no answer stay apart."""
    if before.messages == after.messages and before.system == after.system:
        return False  # the same dialect's request asked again: the caller's own look-up places it
    earlier, later = model_view(before, None), model_view(after, None)
    if earlier.system != later.system:
        return False
    prior, sent = _said(earlier.conversation), _said(later.conversation)
    length = len(prior)
    if len(sent) < length or not all(_alike(a, b, by_id) for a, b in zip(prior, sent)):
        return False
    if len(sent) == length:
        # Asked again: it goes on from this history only if that holds some answer of the model's.
        return any(item[0] == "call" or item[1] == "assistant" for item in sent if item[0] != "result")
    if answer is None:
        return False
    expected = _said(message_items(answer.message))
    turn = length
    while turn < len(sent) and (sent[turn][0] == "call" or sent[turn][:2] == ("text", "assistant")):
        turn += 1
    if not expected or turn == length or turn == len(sent):
        return False  # no answer sent back, or nothing after it
    calls = [item for item in sent[length:turn] if item[0] == "call"]
    made = [item for item in expected if item[0] == "call"]
    if len(calls) != len(made) or not all(_alike(a, b, by_id) for a, b in zip(made, calls)):
        return False
    said = "\n".join(item[2] for item in sent[length:turn] if item[0] == "text")
    answered = "\n".join(item[2] for item in expected if item[0] == "text")
    if said == answered:
        return True
    # The answer's text last, after its thinking written out as text (and nothing else but the tags around it).
    if not said.endswith(answered):
        return False
    before_answer = said[: len(said) - len(answered)]
    thinking = [t for t in _thinking_texts(answer.message) if t in before_answer]
    for found in thinking:
        before_answer = before_answer.replace(found, "")
    return bool(thinking) and not TAGS.sub("", before_answer).strip()


TAGS = re.compile(r"</?[A-Za-z][A-Za-z_-]*>")
"""A markup tag a program wraps the thinking it sends on as text in (`<thinking>`, `<think>`)."""


def _said(items: list[tuple] | tuple[tuple, ...]) -> list[tuple]:
    """The items without empty texts, each text stripped: a turn sent back may drop or trim a blank text."""
    return [("text", item[1], item[2].strip()) if item[0] == "text" else item
            for item in items if item[0] != "text" or item[2].strip()]


def item_key(item: tuple) -> tuple:
    """An item as an index key: a call by its name alone (its id may be made up, its arguments unhashable)."""
    if item[0] == "call":
        return ("call", item[2])
    if item[0] == "result":
        return ("result",)
    return item


def _alike(expected: tuple, item: tuple, by_id: bool) -> bool:
    """Whether two items (`message_items`) say the same; ids compared only `by_id`."""
    if expected[0] != item[0]:
        return False
    if expected[0] == "text":
        return expected == item
    if expected[0] == "call":
        return expected[2:] == item[2:] and (not by_id or expected[1] == item[1])
    return (expected[2] == item[2] or _wrapped(expected[2], item[2]) or _wrapped(item[2], expected[2])) \
        and (not by_id or expected[1] == item[1])


def _wrapped(content: str, bare: str) -> bool:
    """Whether a result is another's text wrapped as the one value of a JSON object: Gemini takes a function's
    response as an object only, so a program sends a text on to it as `{"return_value": "..."}`."""
    if not content.startswith("{") or len(content) <= len(bare):
        return False
    try:
        value = json.loads(content)
    except ValueError:
        return False
    return isinstance(value, dict) and len(value) == 1 and next(iter(value.values())) == bare


def _thinking_texts(message: Message) -> list[str]:
    """The texts a message's parts of other kinds (thinking, reasoning summaries) hold, each long enough to tell
    apart."""
    found: list[str] = []

    def walk(value: JSON) -> None:
        if isinstance(value, str):
            if len(value.strip()) >= THINKING_TEXT_MIN:
                found.append(value.strip())
        elif isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for part in message.parts:
        if part.kind == "other":
            walk(part.raw)
    return found


THINKING_TEXT_MIN = 20
"""The shortest thinking text looked for inside a text sent back: a part's short values (its type, `summary_text`) are
names, not thinking, and would be found in any text."""
