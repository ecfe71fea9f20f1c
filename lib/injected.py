"""Context an agent writes into a user-role message: text the harness added, not words a person typed.

Agents send some of their own context as user messages: Codex its AGENTS.md instructions, its environment, a skill,
a shell command the person ran, a turn the person stopped (codex-rs/core's contextual user fragments); Claude Code
its system reminders and the text of a slash command or a local command's output; Gemini CLI the prompt its /init
command submits for the person. Each such text opens with a tag, header or sentence the agent writes. A message whose every text opens so is the agent's context, not the person asking; a message
that mixes them is the person's, their words being the texts that do not open so.

A program may also ask the model again on its own, in the user's role: after a turn that announced an action and made
no call, Roundtrip's narration guard appends one re-ask. No tag marks that text; the round whose response it answers
says so in its `guard` field (docs/trace-format.md).
"""

from __future__ import annotations

from lib.model import Message, Round

OPENINGS: tuple[str, ...] = (
    # Codex (codex-rs/core/src/contextual_user_message.rs; older versions' <user_instructions>).
    "# AGENTS.md instructions for ", "<INSTRUCTIONS>", "<user_instructions>", "<environment_context>", "<skill>",
    "<user_shell_command>", "<turn_aborted>", "<subagent_notification>", "<additional_context>",
    # Claude Code.
    "<system-reminder>", "<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
    "<local-command-stderr>", "<local-command-caveat>",
    # Gemini CLI: the prompt its /init command submits in the person's place (packages/core/src/commands/init.ts).
    "You are an AI agent that brings the power of Gemini directly into the terminal.",
)
"""How an agent's own text in a user message opens (compared without case, leading space set aside)."""
_LONGEST = max(map(len, OPENINGS))
"""The most of a text's opening that any of OPENINGS needs: a long message is not case-folded whole."""

WHOLE: frozenset[str] = frozenset({
    # Gemini CLI sends this as the user when a stream came back invalid and it asks the model again (core/client.ts).
    "system: please continue.",
})
"""Whole texts an agent sends in the user's role on its own (compared without case, outer space set aside)."""


def agent_wrote(text: str) -> bool:
    """Whether a user message's text is context the agent wrote: it opens with one of the agent's tags or headers."""
    opening = text.lstrip()[:_LONGEST].casefold()
    return text.strip().casefold() in WHOLE or any(opening.startswith(o.casefold()) for o in OPENINGS)


def person_text(message: Message) -> str:
    """The words a person wrote in a user message: its texts less those the agent wrote ("" when all are)."""
    return "\n".join(p.text for p in message.parts if getattr(p, "kind", None) == "text" and not agent_wrote(p.text))


def context_only(message: Message) -> bool:
    """Whether a user message holds text and all of it is context the agent wrote (no tool result, no person's
    words)."""
    return bool(message.text) and not message.tool_results and not person_text(message)


REASK = "narration-reask"
"""A round's `guard` (docs/trace-format.md) when the program appended one re-ask, in the user's role, to the next
request: the round's response ended the turn with no call and no tool result behind it."""


def reasked_after(round_: Round | None) -> bool:
    """Whether the program wrote a re-ask into the request after this round (the round's `guard` says so)."""
    return round_ is not None and round_.extra.get("guard") == REASK
