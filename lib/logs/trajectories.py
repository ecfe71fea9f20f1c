"""Agent trajectories: a whole agent run per file or per array element, split into rounds.

- SWE-agent `.traj` files: one run, its conversation under `history` (Chat Completions messages
  with SWE-agent's own bookkeeping beside them: `agent`, `message_type`, `thought`, `action`, and
  `tool_call_ids` where the API has one `tool_call_id`).
- tau-bench results: a JSON array of episodes, each with its messages under `traj` (or
  `messages`), beside `task_id`, `reward` and `trial`.

Each run or episode is one conversation; each assistant message is one round's response and
everything before it that round's request, as for fine-tuning lines (lib/logs/finetune.py).
"""

from __future__ import annotations

from typing import Any, Iterator

import orjson

from lib.intern import loads_exact
from lib.logs.chat_shape import describe, require
from lib.logs.finetune import conversation_rounds
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.text import shorten

SWE_AGENT_KEYS = ("trajectory", "info", "environment", "replay_config")
"""Keys a SWE-agent `.traj` file keeps beside `history`."""

SWE_AGENT_MESSAGE_KEYS = ("agent", "message_type", "thought", "action", "tool_call_ids", "is_demo", "cache_control")
"""Message keys SWE-agent keeps for itself; the API never saw them."""

EPISODE_KEYS = ("task_id", "reward", "trial")
"""Keys beside an episode's messages that say it is a benchmark episode, not one request."""

EPISODE_MESSAGE_KEYS = ("traj", "messages")
"""Where an episode keeps its conversation, most specific first."""


class SweAgentFormat(LogFormat):
    """A SWE-agent `.traj` file: the run's `history` as one conversation."""

    name = "swe-agent"
    detect_keys = frozenset({"history"})
    title = "SWE-agent trajectory"
    reads = "'history' beside 'trajectory' or 'info', or history messages with 'message_type'"

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get("history"), list) and any(k in obj for k in SWE_AGENT_KEYS):
            return "'history' beside 'trajectory' or 'info' (a SWE-agent trajectory)"
        history = obj.get("history")
        if isinstance(history, list) and history and isinstance(history[0], dict) and "message_type" in history[0]:
            return "'history' messages with a 'message_type' (a SWE-agent trajectory)"
        return None

    def __init__(self) -> None:
        self._notes: list[Problem] = []

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        history = require(obj, "history", list)
        messages = [message for i, raw in enumerate(history) for message in _api_messages(raw, f"history[{i}]")]
        run = _instance_id(obj) or f"trajectory {line}"
        yield from conversation_rounds(messages, _model_of(obj), line, run, "'history'")
        missing = _steps_not_in_history(obj, sum(1 for m in messages if m.get("role") == "assistant"))
        if missing:
            self._notes.append(Problem(line, missing, conversation=run))
        counted = _own_count(obj)
        if counted:
            self._notes.append(Problem(line, counted, conversation=run))

    def notes(self) -> list[Problem]:
        return self._notes


def _steps_not_in_history(obj: dict, turns: int) -> str | None:
    """What the run did past its `history`, in words: SWE-agent may save the history before the last step (the
    `submit`), which `trajectory` and info.model_stats still count."""
    steps = obj.get("trajectory") if isinstance(obj.get("trajectory"), list) else []
    if len(steps) <= turns:
        return None
    actions = [str(s.get("action") or "").strip() for s in steps[turns:] if isinstance(s, dict)]
    calls = _model_stats(obj).get("api_calls")
    counted = f"; info.model_stats counts {calls:,} API calls" if calls is not None else ""
    last = "The last step" if len(actions) == 1 else f"The last {len(actions):,} steps"
    verb = "is" if len(actions) == 1 else "are"
    return (f"the run's trajectory has {len(steps):,} steps and its history {turns:,} model turns{counted}. {last} "
            f"({', '.join(shorten(a, 60) for a in actions)}) {verb} not in the history, so not shown as a round: the "
            "rounds shown are not the whole run.")


TOKEN_STATS = (("tokens_sent", "{:,} tokens sent"), ("tokens_received", "{:,} received"))
"""The token counts of SWE-agent's info.model_stats, and how each is said."""


def _model_stats(obj: dict) -> dict[str, int]:
    """The counts the run kept of itself (info.model_stats: tokens sent and received, API calls), the whole numbers."""
    info = obj.get("info")
    stats = info.get("model_stats") if isinstance(info, dict) else None
    if not isinstance(stats, dict):
        return {}
    return {key: value for key, value in stats.items()
            if key in ("tokens_sent", "tokens_received", "api_calls") and type(value) is int and value >= 0}


def _own_count(obj: dict) -> str | None:
    """What the run counted of itself, said beside our figures and never added to them: SWE-agent's counts sum
    every call, the history's included or not, with its own tokenizer."""
    stats = _model_stats(obj)
    if not stats:
        return None
    tokens = ", ".join(words.format(stats[key]) for key, words in TOKEN_STATS if key in stats)
    calls = f"{stats['api_calls']:,} API calls" if "api_calls" in stats else ""
    counts = f"{tokens} over {calls}" if tokens and calls else tokens or calls
    return (f"the run's own info.model_stats: {counts}. SWE-agent counted these itself: the rounds' token figures "
            "here are our own, and neither is added to the other.")


def _model_of(obj: dict) -> dict:
    """The model the run was configured with (`replay_config`, a JSON string or object: agent.model.name), as a
    request parameter; empty when the file does not say."""
    config = obj.get("replay_config")
    if isinstance(config, str):
        try:
            config = loads_exact(config)
        except orjson.JSONDecodeError:
            return {}
    agent = config.get("agent") if isinstance(config, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    name = model.get("name") if isinstance(model, dict) else None
    return {"model": name} if isinstance(name, str) and name else {}


def _api_messages(raw: Any, where: str) -> list[dict]:
    """A history entry as the API messages it stood for: a tool observation answering several calls
    becomes one tool message per call id."""
    if not isinstance(raw, dict):
        raise LineProblem(f"{where} is {describe(raw)}, expected a message object")
    require(raw, "role", str, f"{where} ")
    message = {k: v for k, v in raw.items() if k not in SWE_AGENT_MESSAGE_KEYS}
    ids = raw.get("tool_call_ids")
    if raw["role"] != "tool" or "tool_call_id" in raw or not isinstance(ids, list) or not ids:
        return [message]
    return [{**message, "tool_call_id": str(call_id)} for call_id in ids]


def _instance_id(obj: dict) -> str | None:
    """The task a run worked on, where the file names it."""
    info = obj.get("info") if isinstance(obj.get("info"), dict) else {}
    return str(info["instance_id"]) if info.get("instance_id") else None


class EpisodeFormat(LogFormat):
    """A benchmark episode (tau-bench style): messages under `traj` or `messages` with a task id or reward."""

    name = "agent-episode"
    detect_keys = frozenset({"traj", "messages"})
    title = "Agent episode (tau-bench style)"
    reads = "messages under 'traj', or under 'messages' beside 'task_id', 'reward' or 'trial'"

    def detect(self, obj: dict) -> str | None:
        key = _messages_key(obj)
        if key == "traj":
            return "messages under 'traj' (a tau-bench style episode)"
        if key and any(k in obj for k in EPISODE_KEYS) and "model" not in obj:
            return f"messages under '{key}' beside 'task_id', 'reward' or 'trial' (an agent episode)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        key = _messages_key(obj) or "traj"
        raws = require(obj, key, list)
        messages = []
        for i, raw in enumerate(raws):
            if not isinstance(raw, dict):
                raise LineProblem(f"{key}[{i}] is {describe(raw)}, expected a message object")
            require(raw, "role", str, f"{key}[{i}] ")
            messages.append(raw)
        yield from conversation_rounds(messages, {}, line, _episode_name(obj, line), f"'{key}'")


def _messages_key(obj: dict) -> str | None:
    return next((k for k in EPISODE_MESSAGE_KEYS if isinstance(obj.get(k), list)), None)


def _episode_name(obj: dict, line: int) -> str:
    """`episode 3 (task 35, trial 2)`: the element number keeps two runs of one task apart."""
    details = [f"{k.replace('_id', '')} {obj[k]}" for k in ("task_id", "trial") if obj.get(k) is not None]
    return f"episode {line}" + (f" ({', '.join(details)})" if details else "")
