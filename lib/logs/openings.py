"""The conversations being rebuilt, by the opening they are indexed under and by where their last request ends.

An eval or an agent benchmark runs one task many times: thousands of conversations open with the same messages. A
request goes on from a conversation only if it starts with that conversation's last request, so it need look only at
the conversations whose last request ends the way the request reads at that length. Looking each one up keeps the
import's time per call flat as their number grows (`bench.shared_opening`), where walking every conversation of the
opening made it grow with them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

End = tuple[int, Any]
"""Where a request's messages end: how many there are, and what the last one says."""


def end_key(raw: Any) -> tuple:
    """What a request's raw message says, loosely: equal for two messages the model reads alike (lib.dialects.common.
    read_form sets cache breakpoints aside and writes a lone text block as its string; neither changes the role, the
    text or the call id), and seldom equal for two it reads otherwise. Candidates found by it are compared in full."""
    if not isinstance(raw, dict):
        return (type(raw).__name__,)
    role, call_id, content = raw.get("role"), raw.get("tool_call_id"), raw.get("content")
    if isinstance(content, str):
        said = content
    elif isinstance(content, list):
        said = "".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    else:
        said = ""
    return (role if isinstance(role, str) else None, said, call_id if isinstance(call_id, str) else None)


class Openings:
    """Conversations (any objects; told apart by identity) listed under each opening in the order they were indexed
    under it, and, once an opening holds more than a few, found by where their last request ends. `key` tells what a
    message says: `end_key` for raw messages; a model Message is its own key (equal by its digest)."""

    FEW = 8
    """An opening with at most this many conversations is walked whole: keeping its index would cost more."""

    def __init__(self, key=end_key) -> None:
        self._key = key
        self._listed: dict[tuple, list] = {}
        self._position: dict[tuple[tuple, int], int] = {}
        """(opening, id(conversation)): its place in that opening's list."""
        self._openings_of: dict[int, list[tuple]] = {}
        self._last: dict[int, list | tuple] = {}
        """id(conversation): the messages of its last request, once it has one."""
        self._end: dict[int, End] = {}
        """id(conversation): where its last request ends, for one under an opening that is indexed."""
        self._by_end: dict[tuple, dict[End, dict[int, Any]]] = {}
        """Each opening that holds more than FEW: its conversations by where their last request ends."""
        self._lengths: dict[tuple, Counter] = {}
        """Each opening indexed: how many of its conversations' last requests hold each number of messages."""

    def copied(self, key) -> "Openings":
        """The same conversations under the same openings, in the same order, with no request yet, told by `key`."""
        copy = Openings(key)
        for opening, listed in self._listed.items():
            for conversation in listed:
                copy.add(opening, conversation)
        return copy

    def listed(self, opening: tuple) -> list:
        """The conversations indexed under `opening`, in the order they were."""
        return self._listed.get(opening, [])

    def add(self, opening: tuple, conversation: Any) -> None:
        """List `conversation` under `opening` too (at most once)."""
        if (opening, id(conversation)) in self._position:
            return
        listed = self._listed.setdefault(opening, [])
        self._position[(opening, id(conversation))] = len(listed)
        listed.append(conversation)
        self._openings_of.setdefault(id(conversation), []).append(opening)
        if len(listed) == self.FEW + 1:
            self._by_end[opening], self._lengths[opening] = {}, Counter()
            for each in listed:
                self._file(opening, each)
        elif len(listed) > self.FEW:
            self._file(opening, conversation)

    def ended(self, conversation: Any, messages: list | tuple | None) -> None:
        """The conversation's last request now holds `messages` (None: it has no call left)."""
        number = id(conversation)
        old = self._end.pop(number, None)
        if messages is None:
            self._last.pop(number, None)
        else:
            self._last[number] = messages
        for opening in self._openings_of.get(number, ()):
            if opening not in self._by_end:
                continue
            if old is not None:
                del self._by_end[opening][old][number]
                lengths = self._lengths[opening]
                lengths[old[0]] -= 1
                if not lengths[old[0]]:
                    del lengths[old[0]]
            self._file(opening, conversation)

    def _file(self, opening: tuple, conversation: Any) -> None:
        number = id(conversation)
        if (end := self._end.get(number)) is None:
            if (messages := self._last.get(number)) is None:
                return
            end = self._end[number] = (len(messages), self._key(messages[-1]) if messages else None)
        self._by_end[opening].setdefault(end, {})[number] = conversation
        self._lengths[opening][end[0]] += 1

    def ending_within(self, opening: tuple, messages: list | tuple) -> list:
        """The conversations under `opening` whose last request could be where `messages` start, in the order they
        were indexed: of an opening that holds many, those whose last request holds as many messages or fewer, the
        last of them what `messages` says at that place; of one that holds few, all of them. The caller compares
        what it finds in full."""
        by_end = self._by_end.get(opening)
        if by_end is None:
            return self._listed.get(opening, [])
        found = []
        for length in self._lengths[opening]:
            if length <= len(messages):
                found.extend(by_end.get((length, self._key(messages[length - 1]) if length else None), {}).values())
        if len(found) > 1:
            found.sort(key=lambda conversation: self._position[(opening, id(conversation))])
        return found
