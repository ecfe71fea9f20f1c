"""Provenance in words: whether a payload on screen is what was sent, or what was made of a record."""

from __future__ import annotations

from lib.dialects import DIALECT_NAMES
from lib.model import STREAMED, Notice, Provenance, Round, Trace

ORIGIN_TITLES = {
    "recorded": "As recorded: the payload the program sent and received.",
    "completed": "Completed from a partial record: parts of this payload were added, not recorded.",
    "constructed": "Constructed for teaching: not a recording.",
    "derived": "Derived by the importer: parts of this payload were inferred from the log, not recorded.",
}
"""Each origin as the line shown next to a payload (our own words)."""

CONVERTED_FROM = {
    "adk-session": "a Google ADK session event",
    "anthropic-messages": "an Anthropic Messages body",
    "any-agent": "an any-agent trace's span",
    "autogen-record": "an AutoGen recorded call",
    "bedrock-converse": "an AWS Bedrock Converse body",
    "cline-task": "a Cline or Roo Code task history",
    "cohere": "a Cohere v2 chat body",
    "cohere-v1": "a Cohere v1 chat body",
    "dspy-request": "a DSPy LM request",
    "gemini": "a Google Gemini generateContent body",
    "gemini-cli-session": "a Gemini CLI session recording",
    "gemini-interactions": "a Google Gemini Interactions API body",
    "goose-session": "a Goose session file",
    "inspect": "an Inspect AI model event",
    "langfuse": "a Langfuse trace export",
    "langsmith": "a LangSmith run export",
    "mlflow": "an MLflow trace's span",
    "ollama": "an Ollama /api/chat body",
    "openai-chat": "an OpenAI Chat Completions body",
    "openai-responses": "an OpenAI Responses API object",
    "opencode-run-json": "OpenCode's run --format json output",
    "opencode-session": "an OpenCode session export",
    "codex-rollout": "an OpenAI Codex CLI session log (a rollout)",
    "openinference": "an OpenInference span",
    "otel-genai": "an OpenTelemetry GenAI span",
    "sharegpt": "a ShareGPT / Hermes transcript",
    "vercel-ai-sdk": "a Vercel AI SDK span",
}
"""What each importer's `converted_from` read, in words."""


STREAM_ASSEMBLED = ("The response came as a stream: the body shown is assembled here from its chunks, not received in "
                    "that shape.")
"""Said of a streamed response wherever the origin line does not say it in its own words."""


def origin_line(trace: Trace, round_: Round) -> str:
    """The line shown next to a round's payload: its origin, and for a round an importer converted from another
    format, that the body on screen (and every path its steps name) is our writing of the record, not the record;
    for a response that came as a stream, that the body shown is our assembly of it."""
    provenance = trace.round_provenance(round_)
    if not round_.extra.get("converted_from") and provenance.origin == "recorded":
        line = _half_recorded(round_)
    else:
        line = _origin(trace, round_, provenance)
        line = f"{line} {STREAM_ASSEMBLED}" if _streamed(round_) else line
    return f"{line} {cache_words(round_)}" if round_.from_cache else line


CACHES = {"autogen": "AutoGen's ChatCompletionCache"}
"""The caches a program keeps in front of the model, by the key its reader writes under lib.model.FROM_CACHE."""


def cache_words(round_: Round) -> str:
    """What a round the program's own cache answered is (Round.from_cache), in our words: the cache is named from
    CACHES, never from the trace's text, as this line is drawn as markdown."""
    cache = CACHES.get(round_.from_cache or "", "the program's own cache")
    return (f"Answered from {cache}, as the recording marks it: the response is a copy of the one the model gave an "
            "earlier request alike, and no provider saw this request, so no call was made and nothing was billed for "
            "it; the usage shown with the response is that earlier call's.")


def _streamed(round_: Round) -> bool:
    """Whether the round's response came as a stream that the importer assembled (lib.model.STREAMED)."""
    return round_.extra.get(STREAMED) is True and round_.response is not None


def _origin(trace: Trace, round_: Round, provenance: Provenance) -> str:
    """A round's origin in words, and for a converted round, that the body shown is our writing of the record."""
    converted = round_.extra.get("converted_from")
    if not converted:
        return ORIGIN_TITLES[provenance.origin]
    # Our words only: a native trace's `converted_from` is the file's text, and this line is drawn as markdown.
    source = CONVERTED_FROM.get(converted, "another log format")
    body = f"written here as an {DIALECT_NAMES.get(trace.dialect, trace.dialect)} body"
    if provenance.origin == "recorded" and round_.sent_on and round_.sent_on_notes:
        # A call sent on in another API's format, written in the conversation's: what that body has no place for
        # (thinking, a reasoning count) is not on screen, and a field it requires is ours. The note lists them.
        return (f"Converted from {source}, {body}: not all of the content is as recorded, as writing it so left out "
                "or filled in what the note lists, and the paths on the steps name this body, not the log's.")
    if provenance.origin == "recorded":
        return (f"Converted from {source}: the content is as recorded, {body}, so the paths on the steps name this "
                "body, not the log's.")
    return (f"{ORIGIN_TITLES[provenance.origin]} Converted from {source}, {body}, so the paths on the steps name this "
            "body, not the log's.")


def _half_recorded(round_: Round) -> str:
    """A recorded round's line, saying which half the log kept when it kept only one, and when the response came as a
    stream, that the body shown is our assembly of it."""
    streamed = _streamed(round_)
    if not round_.request_recorded:
        if streamed:
            return ("As recorded: the response the program received as a stream, shown here assembled into the body "
                    "the API returns unstreamed; the request was not in the log.")
        return "As recorded: the response the program received; the request was not in the log."
    if streamed:
        return ("As recorded: the request the program sent; the response came as a stream, shown here assembled into "
                "the body the API returns unstreamed.")
    if round_.response is None and round_.error is None:
        return "As recorded: the request the program sent; no response to it was in the log."
    return ORIGIN_TITLES["recorded"]


def provenance_detail(provenance: Provenance) -> str:
    """What was added, reconstructed, inferred or left out, from the trace (untrusted text); empty when nothing is said.
    A note that opens with the origin line's own words says the rest only: the line above it has said that much."""
    pieces = [said] if (said := _beyond_origin(provenance)) else []
    # A system prompt or tool list the record lacks is said where its tokens would be (lib.summary.tool_list_missing,
    # the input split's "not in the log"), in one statement: listed here too, it would be said twice.
    lacked = [o for o in provenance.omitted if o not in LACKED_NAMES]
    if lacked:
        pieces.append("The recorded request lacks: " + ", ".join(lacked) + ".")
    return " ".join(pieces)


def _beyond_origin(provenance: Provenance) -> str:
    """The note without a lead that repeats its origin's line (`Constructed for teaching: …` under "Constructed for
    teaching: not a recording."); the note as written when it does not."""
    lead = ORIGIN_TITLES.get(provenance.origin, "").split(":")[0] + ":"
    if len(lead) < 2 or not provenance.note.startswith(lead):
        return provenance.note
    rest = provenance.note[len(lead):].strip()
    return rest[:1].upper() + rest[1:]


LACKED_NAMES = {"system": "the system prompt", "tools": "the tool list"}
"""What a provenance's `omitted` entries name, in the words a converted request's note uses."""


def converted_lacks(provenance: Provenance) -> str:
    """Said over a request converted from a record that lacks parts of what was sent (Claude Code's system prompt and
    tool list): the conversion lacks them too, so it is not the request the program sent. Empty when nothing is
    omitted. Holds the trace's own `omitted` entries (untrusted text)."""
    if not provenance.omitted:
        return ""
    named = [LACKED_NAMES.get(o, o) for o in provenance.omitted]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return (f"The log did not keep {listed} this request was sent with, so this conversion lacks "
            f"{'it' if len(named) == 1 else 'them'} too: it is not the request as the program sent it.")


ANSWER_NOT_CAPTURED = "The log did not capture this turn's content: what the model wrote is not in the record."
"""Said on a model's turn the log kept none of (Round.answer_recorded): not that the model wrote nothing."""
NOT_CAPTURED = "the log did not capture what the model wrote"
"""ANSWER_NOT_CAPTURED in a label's few words: the diagram's arrow and step 5's label on the stop signal."""


def notice_heading(notice: Notice) -> str:
    """What stands above a message the writing program showed the person (Round.notices): whose it was, when, and
    its kind; every view writes this, then the message itself as text. The program's name and the kind are the log's
    words too: shown as text, like the message."""
    when = "after this round" if notice.after else "before this request"
    return f"{notice.by}'s message {when} ({notice.kind}):"
