"""Why nothing read a file: the formats that came closest to a line, and why they did not match.

Asked only after the whole file has been read and no format read anything, so detection, which
runs once per line, stays as fast as it was.
"""

from __future__ import annotations

from lib.logs.record import LogFormat, Problem

SHOWN_KEYS = 8
"""Top-level keys named when no format comes close."""
ERROR_ALONE = ("it is a provider's error body alone: the answer to a call that failed, without the request it answers, "
               "so there is no round to show; a log that keeps each request beside its answer (request and response "
               "pairs, a cassette, a HAR file) shows the failed call with what it sent")
"""Said of an object that is an error body and nothing else, where no format comes close."""


def nothing_read(instances: list[LogFormat], forced: str | None, first: tuple[int, dict] | None,
                 files: int = 1) -> list[Problem]:
    """One problem on the first object of the upload's `files` saying why no format read it; nothing when there is no
    object."""
    if first is None:
        return []
    number, obj = first
    if forced:
        return [Problem(number, said) for said in _forced_miss(instances[0], obj, files)]
    where = "the file" if files == 1 else f"the {files} files"
    return [Problem(number, f"no line of {where} matches a known log format; {closest(instances, obj)}")]


def closest(instances: list[LogFormat], obj: dict) -> str:
    """The formats that came closest to reading `obj`, each with why it did not."""
    reasons = [f"{instance.title}: {why}" for instance in instances if (why := _near_miss(instance, obj))]
    if reasons:
        return "closest: " + "; ".join(reasons)
    if _error_alone(obj):
        return ERROR_ALONE
    keys = ", ".join(f"'{k}'" for k in list(obj)[:SHOWN_KEYS]) or "none"
    return f"none comes close (the first object's keys: {keys})"


def _forced_miss(instance: LogFormat, obj: dict, files: int = 1) -> list[str]:
    """Why the chosen format read nothing: when `obj` was its shape, that no call could be rebuilt from it; when it
    was not, nothing more, its line having said already which of the format's rules it fails (LogFormat.chosen)."""
    try:
        rule = instance.chosen(obj)
    except Exception:  # noqa: BLE001 - a line the format refused, or a rule that cannot read it, does not match it
        return []
    where = "the file" if files == 1 else "the files"
    return [f"read as {instance.title} (its rule matched: {rule}), but no call could be rebuilt from {where}"]


def _near_miss(instance: LogFormat, obj: dict) -> str | None:
    try:
        return instance.near_miss(obj)
    except Exception:  # noqa: BLE001 - an explanation must never cost the upload
        return None


def _error_alone(obj: dict) -> bool:
    """Whether `obj` is an error body as the model APIs write one and nothing else: `{"error": {...}}` (OpenAI's,
    Gemini's, most compatible servers'), or Anthropic's `{"type": "error", "error": {...}}`, beside an id at most."""
    error = obj.get("error")
    return isinstance(error, dict) and isinstance(error.get("message"), str) \
        and set(obj) <= {"error", "type", "request_id", "id"} and obj.get("type", "error") == "error"
