"""What a failed model call is, in one sentence of our own: an HTTP refusal, no answer at all, or a replay
with no recording for the request. The explorer's cards and the HTML export say it the same way."""

from __future__ import annotations

from dataclasses import dataclass

from lib.model import STREAM_ENDED, UNDECODED_NAMES, ProviderError, Round

NO_RECORDING = "no_recording"
"""The error type the replay provider writes when no recording matches a request."""


NO_RECORDING_SAID = "No recording for this request: the replay provider answers only the requests it has recorded."
"""What a replay miss is, once: the replay provider's error message and the heading above it are this sentence. What
to do next is the page's to say (choose a real provider, undo the edit), so the trace does not say it."""

NO_RESPONSE = ("No response recorded for this round: the log ends on this request, and does not say whether the call "
               "was still running or its answer was not kept.")
"""Said where a round's response would be when the log holds its request and nothing after it."""

PART_CAME_BACK = "Before the call failed, part of the response had come back:"
"""Said above the part of a response a failure broke off (a Claude Code response an API error cut short)."""


REFUSED_HERE = "refused_before_sending"
"""The error type Roundtrip writes when it refused to send a call itself (a base URL typed on a shared server that
leads inside the server's network): no provider saw the request."""


UNREACHABLE = "connection_failed"
"""The error type Roundtrip writes when no connection to the provider's server could be made: nothing answered."""


TIMED_OUT = "timed_out"
"""The error type Roundtrip writes when a call's timeout or deadline passed before an answer came: nothing answered."""


def no_answer(error: ProviderError | None) -> bool:
    """True when Roundtrip itself recorded that no answer came (a timeout, a passed deadline, a failed connection):
    there is no HTTP status because none came, not because a log left it out."""
    return _error_type(error) in (UNREACHABLE, TIMED_OUT)


def unreachable_said(host: str | None) -> str:
    """What a call that reached no server is, naming the server by host only: a base URL may carry a key or a
    token in its user part or query, and the transport's exception class means nothing to a learner."""
    server = host or "the server"
    return (f"Connection failed: {server} could not be reached (no network, or nothing answering at that "
            f"address).")


def _error_type(error: ProviderError | None) -> object:
    body = error.body if error is not None and isinstance(error.body, dict) else {}
    # A native trace keeps the whole error field (status, message, body); other logs keep the body alone.
    inner = (body.get("body") if isinstance(body.get("body"), dict) else body).get("error")
    return inner.get("type") if isinstance(inner, dict) else None


def is_replay_miss(error: ProviderError | None) -> bool:
    """True when the replay provider had no recording for the request: nothing was sent anywhere."""
    return _error_type(error) == NO_RECORDING


def is_unsent(error: ProviderError | None) -> bool:
    """True when no provider saw the request: a replay miss, or a call Roundtrip refused to send."""
    return _error_type(error) in (NO_RECORDING, REFUSED_HERE)


UNRUN_IN_BATCH = {"expired": "expired", "canceled": "canceled", "batch_expired": "expired",
                  "batch_cancelled": "canceled"}
"""How a batch says it ended before it ran a request (Anthropic's result `type`, OpenAI's error `code`), by what
became of the batch."""


def unrun_in_batch(error: ProviderError | None) -> str | None:
    """`expired` or `canceled` when the batch ended before it ran the request: no provider looked at it; else None."""
    body = error.body if error is not None and isinstance(error.body, dict) else {}
    inner = body.get("body") if isinstance(body.get("body"), dict) else body
    said = inner.get("type") if "type" in inner else inner.get("code")
    return UNRUN_IN_BATCH.get(said) if isinstance(said, str) else None


NO_CALL_MADE = "no call made"
"""A figure's words for a round whose request no provider saw (lib.summary.RoundSummary.sent): nothing was read,
written or billed, so it is neither 0 tokens of a call nor a figure the log lacks."""


def unmade_words(error: ProviderError | None) -> str | None:
    """What every view writes where the stop or outcome of a round that made no call (is_unsent) would be: that no call
    was made, and why; None for a call a provider saw. Such a call did not fail: nothing was sent."""
    if is_replay_miss(error):
        return f"{NO_CALL_MADE} (Replay has no recording of this request)"
    if is_unsent(error):
        return f"{NO_CALL_MADE} (Roundtrip refused to send it)"
    return None


def stream_ended_words(error: ProviderError) -> str:
    """Where an error event ended an answer that had begun streaming (ProviderError.ended_stream), what happened, as
    every view says it: the HTTP status the answer began under, then the status the event names; our words only."""
    named = (f"an error event the provider marked {error.status}" if _numeric(error.status)
             else "an error event that names no status")
    if error.body.get(STREAM_ENDED, {}).get("before_answer"):  # the first event was the error: no answer came
        opened = f"under HTTP {error.stream_status}" if error.stream_status is not None else "(no HTTP status kept)"
        return f"the stream opened {opened}, and its first event was {named}: no part of an answer came"
    began = (f"began streaming under HTTP {error.stream_status}" if error.stream_status is not None
             else "began streaming (the log kept no HTTP status)")
    return f"the answer {began}, then the stream ended with {named}"


def status_words(error: ProviderError) -> str:
    """A failure's status in a few words, as tables and exports show it: "HTTP 400", or, for a stream an error event
    ended, "HTTP 200, then an error event marked 400"."""
    if not error.ended_stream:
        return f"HTTP {error.status}" if error.status is not None else "no status"
    began = f"HTTP {error.stream_status}" if error.stream_status is not None else "streaming began"
    named = f"an error event marked {error.status}" if _numeric(error.status) else "an error event"
    return f"{began}, then {named}"


def failure_heading(error: ProviderError) -> str:
    """The sentence above what the provider said; our own words only."""
    if is_replay_miss(error):
        return NO_RECORDING_SAID
    if is_unsent(error):
        return "Roundtrip refused to send this call, so no provider saw it. Why:"
    if (unrun := unrun_in_batch(error)) is not None:  # a batch result, not an HTTP exchange: no status to miss
        ended = "expired" if unrun == "expired" else "was canceled"
        return f"The batch never ran this call: the batch {ended} before its turn came, so no provider saw it. Why:"
    if error.ended_stream:  # the status line said the answer was on its way: the event's status is not the call's
        return f"The call failed part way: {stream_ended_words(error)}. The provider said:"
    if answered_without_turn(error):
        return f"The server answered HTTP {error.status}, but sent no model turn. What it sent:"
    if _numeric(error.status):
        return f"The call failed: HTTP {error.status}. The provider said:"
    if not error.status and no_answer(error):
        return "The call got no answer, so there is no HTTP status. What happened:"
    if not error.status:
        return "The call failed, and no HTTP status was recorded (the log does not say whether a server answered). What was said:"
    return "The call failed, with an HTTP status that is not a number. The status and what the provider said:"


EMPTY_BODY = "Its response body was empty: the provider sent the status alone, no words."
"""Said in place of what the provider said, where its answer had no body (wordless)."""


def wordless(error: ProviderError) -> bool:
    """Whether a failed call's answer had no body, its message only the HTTP status an importer wrote for it."""
    inner = _provider_body(error)
    return (error.status is not None and error.message == f"HTTP {error.status}"
            and (inner is None or (isinstance(inner, (str, bytes)) and not inner.strip())))


def _provider_body(error: ProviderError):
    """The body the provider sent, out of the record an importer wraps it in ({"status", "body", "message"})."""
    body = error.body
    return body.get("body") if isinstance(body, dict) and set(body) == {"status", "body", "message"} else body


def undecoded_words(error: ProviderError) -> str | None:
    """What a failure whose body was not decoded (ProviderError.undecoded) said, in our words; None for any other."""
    if (encoding := error.undecoded) is None:
        return None
    return (f"Its response body came {UNDECODED_NAMES[encoding]}-compressed (content-encoding: {encoding}) and was not "
            f"decoded: Roundtrip cannot decode {UNDECODED_NAMES[encoding]} here, so what the provider said is not "
            "known. The body was not empty.")


def sent_again(previous: Round | None, round_: Round) -> bool:
    """Whether a round's request is the previous round's sent again after that call failed with no answer: a retry (an
    SDK's own after a 429 or a 5xx, or the program's), the same instructions and messages, nothing new asked."""
    return previous is not None and previous.error is not None and previous.response is None \
        and previous.request_recorded and round_.request_recorded \
        and previous.request.messages == round_.request.messages and previous.request.system == round_.request.system


def sent_again_words(previous: Round | None, round_: Round) -> str | None:
    """What a retried request is (sent_again), in our words; None for any other request."""
    if not sent_again(previous, round_):
        return None
    # Only a numeric status is named: a status that is not a number is the log's text, shown as text on its round.
    status = f" (HTTP {previous.error.status})" if _numeric(previous.error.status) and not previous.error.ended_stream \
        else ""
    return (f"The same request as round {previous.index}, sent again after that call failed{status}: a retry, not a "
            "new turn. The model is asked the same thing again.")


def answered_without_turn(error: ProviderError) -> bool:
    """True when a server answered with a success status but its body held no model turn (a gateway's error object
    under a 200, JSON cut off): a server did answer, so it is no failure to connect, nor a refusal of the request."""
    return _numeric(error.status) and 200 <= error.status < 300 and not error.ended_stream


ATTEMPTS = "attempts"
"""The round field a live run writes when the SDK sent its request more than once: each try's HTTP status, in order,
null where no answer came (docs/trace-format.md)."""


TRIES = "tries"
"""The round field an upload writes where the log holds the round's request sent again unchanged after failed tries:
each failed try, in order, as `{"status", "message", "body", "timestamp", "source_line"}` (docs/trace-format.md)."""

ANSWERED = "answer"
"""A try's place in a round's statuses where an answer came and the log recorded no status for it."""


def tries_words(attempts) -> str:
    """Each try's status in a few words: "HTTP 429, then HTTP 200"; "no answer" where none came, "an answer" where
    one came whose status the log did not record."""
    said = [f"HTTP {status}" if _numeric(status) else "an answer" if status == ANSWERED else "no answer"
            for status in attempts]
    return ", ".join(said[:-1]) + f", then {said[-1]}" if len(said) > 1 else "".join(said)


def tries_said(attempts, logged: bool = False) -> str | None:
    """What a round whose request was sent more than once says about it, or None for one try (or a value that is
    no list of statuses: the trace is untrusted). A live run knows the SDK sent it again; a log (logged) only that
    the same body went out again after a failed try, not whether the SDK or the program sent it."""
    if not (isinstance(attempts, list) and len(attempts) > 1
            and all(a is None or a == ANSWERED or _numeric(a) for a in attempts)):
        return None
    if logged:
        # A failed try's status may be a gateway's or a proxy's (a 502 when the upstream could not be reached): no
        # word on whether the provider saw it.
        return (f"This request was sent {len(attempts)} times, unchanged: {tries_words(attempts)}. The round shows "
                "the last try; the failed tries are kept with it.")
    return (f"The SDK sent this request {len(attempts)} times: {tries_words(attempts)}.{_who_answered(attempts)} The "
            "program got only what the last try brought back.")


def _who_answered(attempts) -> str:
    """What is known of who sent a live run's failed statuses: a 429 is a rate limit, but a live run may call a gateway
    (any base URL), which limits too; any other status may be a gateway's or a proxy's (a 502 where the upstream could
    not be reached), and the SDK keeps no failed try's body that would tell."""
    statuses = list(dict.fromkeys(a for a in attempts if _numeric(a) and a >= 400))
    said = ""
    if 429 in statuses:
        said += " The HTTP 429 is a rate limit, set by the provider or by a gateway on the way."
    if (others := [s for s in statuses if s != 429]):
        names = " and ".join(f"HTTP {s}" for s in others)
        said += (f" Who sent the {names} is not known from the status alone: the provider, or a gateway or proxy on "
                 "the way.")
    return said


def failed_tries(round_: Round) -> list[dict]:
    """The failed tries a log kept of the round's request before its last (TRIES), those whose status is a number;
    [] for a request sent once, or a live run's (the SDK keeps no failed try's body)."""
    tries = round_.extra.get(TRIES)
    if not isinstance(tries, list):
        return []
    return [t for t in tries if isinstance(t, dict) and _numeric(t.get("status"))]


def round_statuses(round_: Round) -> list | None:
    """Each try's status, in order, of a round whose request was sent more than once: the live run's ATTEMPTS, or the
    log's failed tries then the round's own outcome; None for a request sent once."""
    if (tried := failed_tries(round_)):
        last = round_.error.status if round_.error is not None else ANSWERED if round_.response is not None else None
        return [t["status"] for t in tried] + [last]
    return round_.extra.get(ATTEMPTS)


def round_tries(round_: Round) -> str | None:
    """What a round says of its request's tries, wherever its response is shown: the explorer, the HTML file and the
    handout's answers; None for a request sent once."""
    return tries_said(round_statuses(round_), logged=bool(failed_tries(round_)))


def try_heading(number: int, total: int, status) -> str:
    """One failed try of a round (round_statuses) in our words: the line above it (failed_tries), and its answer in
    the sequence diagram; a live run's try that got no answer (None) says so."""
    return f"Try {number} of {total} failed: HTTP {status}." if _numeric(status) else \
        f"Try {number} of {total} failed: no answer came."


TRIES_KEPT = "Failed tries as the log kept them"
"""The heading over a round's failed tries (tries_listed), before their count, wherever they are listed."""


@dataclass(frozen=True, slots=True)
class ListedTry:
    """One failed try a log kept of a round's request, as the explorer's cards and the HTML file list it."""

    heading: str
    """Which try it was and its status, in our words (try_heading)."""
    sent: str | None
    """When it went out, as the log wrote it ("Sent at ..."); None where the log kept no time."""
    said: dict | list | str | None
    """The body the provider sent (its JSON, or its text: a body kept as bytes decoded), else the log's message where
    no body was kept; None where neither. Untrusted: shown as text only."""


def tries_listed(round_: Round) -> list[ListedTry]:
    """Each failed try a log kept of the round's request (failed_tries), in order: its status, when, and what the
    provider sent; [] for a request sent once."""
    tried = failed_tries(round_)
    listed = []
    for number, failed in enumerate(tried, start=1):
        when = failed.get("timestamp")
        said = failed.get("body")
        if isinstance(said, bytes):  # a body the log kept as bytes: its text, not Python's b'...'
            said = said.decode("utf-8", errors="replace")
        if not isinstance(said, (dict, list, str)):
            said = None
        if said is None and isinstance(failed.get("message"), str) and failed["message"]:
            said = failed["message"]  # no body kept: what the log said of it
        listed.append(ListedTry(try_heading(number, len(tried) + 1, failed["status"]),
                                None if when is None else f"Sent at {when}", said))
    return listed


def sent_again_unchanged(previous: Round, request) -> bool:
    """Whether a request is the previous round's sent again unchanged after the provider refused it with an HTTP
    status (a 429, a 5xx): a try of the same round, not a round of its own. A changed body, a failure with no status
    or a stream that ended part way is not known to be the same call tried again."""
    error = previous.error
    return error is not None and previous.response is None and _numeric(error.status) and not error.ended_stream \
        and previous.request_recorded and previous.request.raw == request.raw


def as_failed_try(round_: Round, timestamp: str | None) -> dict:
    """A failed round as one try of the round that sent its request again (TRIES)."""
    error = round_.error
    return {"status": error.status, "message": error.message, "body": _provider_body(error), "timestamp": timestamp,
            "source_line": round_.extra.get("source_line")}


def odd_status(error: ProviderError) -> bool:
    """True when the recorded status is there but not a number: it is shown as the text it is."""
    return bool(error.status) and not _numeric(error.status)


def _numeric(status) -> bool:
    return isinstance(status, int) and not isinstance(status, bool)


def refused_unseen(round_: Round) -> bool:
    """Whether the provider answered the round's request with an HTTP error from its API, so the model saw none of
    it: not a generation the provider rejected (the model wrote it), nor a stream an error event ended part way, nor a
    failure after part of a response had come back."""
    error = round_.error
    return (error is not None and bool(error.status) and not error.rejected_generation and round_.response is None
            and not error.ended_stream)
