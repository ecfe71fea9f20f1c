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
        return ()  # no message at all: all alike (1 == 1.0 == True), told apart by the full comparison
    role, call_id, content = raw.get("role"), raw.get("tool_call_id"), raw.get("content")
    if isinstance(content, str):
        said = content
    elif isinstance(content, list):
        said = "".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    else:
        said = ""
    return (role if isinstance(role, str) else None, said, call_id if isinstance(call_id, str) else None)


def end_of(messages: list | tuple, key=end_key) -> End:
    """Where a request whose messages are `messages` ends, its last message told by `key`."""
    return len(messages), key(messages[-1]) if messages else None


def _count_down(lengths: Counter, length: int) -> None:
    """One conversation fewer ends at `length`: a length none ends at is forgotten, not walked by every look-up."""
    lengths[length] -= 1
    if not lengths[length]:
        del lengths[length]


class Openings:
    """Conversations (any objects; told apart by identity) listed under each opening in the order they were indexed
    under it, and, once an opening holds more than a few, found by where their last request ends and by the answer it
    got. `key` tells what a message says: `end_key` for raw messages; a model Message is its own key (equal by its
    digest). `answer` tells a conversation's last answer as a request would send it back (see `ending_within`)."""

    FEW = 8
    """An opening with at most this many conversations is walked whole: keeping its index would cost more."""

    def __init__(self, key=end_key, answer=lambda conversation: None) -> None:
        self._key, self._answer = key, answer
        self._listed: dict[tuple, list] = {}
        self._position: dict[tuple[tuple, int], int] = {}
        """(opening, id(conversation)): its place in that opening's list."""
        self._openings_of: dict[int, list[tuple]] = {}
        self._last: dict[int, list | tuple] = {}
        """id(conversation): the messages of its last request, once it has one."""
        self._filed: dict[int, tuple[End, Any]] = {}
        """id(conversation): where its last request ends and its answer, for one under an opening that is indexed."""
        self._by_end: dict[tuple, dict[End, dict[Any, dict[int, Any]]]] = {}
        """Each opening that holds more than FEW: its conversations by where their last request ends, then by answer."""
        self._lengths: dict[tuple, Counter] = {}
        """Each opening indexed: how many of its conversations' last requests hold each number of messages."""

    def copied(self, key, answer) -> "Openings":
        """The same conversations under the same openings, in the same order, with no request yet, told by `key` and
        `answer`."""
        copy = Openings(key, answer)
        for opening, listed in self._listed.items():
            for conversation in listed:
                copy.add(opening, conversation)
        return copy

    def has(self, opening: tuple, conversation: Any) -> bool:
        """Whether `conversation` is listed under `opening`."""
        return (opening, id(conversation)) in self._position

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
        old = self._filed.pop(number, None)
        if messages is None:
            self._last.pop(number, None)
        else:
            self._last[number] = messages
        for opening in self._openings_of.get(number, ()):
            if opening not in self._by_end:
                continue
            if old is not None:
                end, answer = old
                alike = self._by_end[opening][end]
                del alike[answer][number]
                if not alike[answer]:  # left behind, emptied groups would be walked by every look-up
                    del alike[answer]
                    if not alike:
                        del self._by_end[opening][end]
                _count_down(self._lengths[opening], end[0])
            self._file(opening, conversation)

    def _file(self, opening: tuple, conversation: Any) -> None:
        number = id(conversation)
        if (filed := self._filed.get(number)) is None:
            if (messages := self._last.get(number)) is None:
                return
            end = end_of(messages, self._key)
            filed = self._filed[number] = (end, self._answer(conversation))
        end, answer = filed
        self._by_end[opening].setdefault(end, {}).setdefault(answer, {})[number] = conversation
        self._lengths[opening][end[0]] += 1

    def ending_within(self, opening: tuple, messages: list | tuple, equal: bool = True, sought=None,
                      extends=None) -> list:
        """The conversations under `opening` whose last request could be where `messages` start, in the order they
        were indexed: of one that holds few, all of them (the caller compares them in full); of one that holds many,
        those whose last request holds fewer messages (as many too, with `equal`), the last of them what `messages`
        says at that place. Given `sought` (what answer a conversation whose last request holds n messages would see
        sent back next: `messages[n]` told as `answer` tells a conversation's) and `extends` (whether `messages` go on
        from a conversation), of the conversations that end alike only those `messages` extend that got the answer
        sought, if any did (with those whose answer `answer` cannot tell, None), else all that it extends: the rest
        can lose only to them."""
        by_end = self._by_end.get(opening)
        if by_end is None:
            return self._listed.get(opening, [])
        found = []
        for length in self._lengths[opening]:
            if length > len(messages) or length == len(messages) and not equal:
                continue
            alike = by_end.get((length, self._key(messages[length - 1]) if length else None))
            if not alike:
                continue
            if sought is None or length == len(messages) or sum(map(len, alike.values())) <= self.FEW:
                found.extend(c for answered in alike.values() for c in answered.values())
                continue
            answered = [c for c in alike.get(sought(length), {}).values() if extends(c)]
            if answered:
                found.extend(answered)
                found.extend(c for c in alike.get(None, {}).values() if extends(c))
            else:
                found.extend(c for group in alike.values() for c in group.values() if extends(c))
        if len(found) > 1:
            found.sort(key=lambda conversation: self._position[(opening, id(conversation))])
        return found


class LateEnds:
    """Conversations listed under a key, found by where their last request ends told by `end` (a number of items and
    what ends them), worked out only when a look-up needs it: for the rules that few imports ever ask (a history sent
    on in another format, compared as the model reads it; a conversation gone on under other instructions), which would
    otherwise walk every conversation of the key."""

    def __init__(self, end) -> None:
        self._end = end
        self._listed: dict[Any, list] = {}
        self._under: dict[int, tuple[Any, int]] = {}
        """id(conversation): its key and its place in that key's list."""
        self._changed: dict[int, Any] = {}
        """Conversations whose last request changed since the last look-up, by id."""
        self._filed: dict[int, tuple] = {}
        """id(conversation): where it was filed (its end)."""
        self._by_end: dict[Any, dict[tuple, dict[int, Any]]] = {}
        self._lengths: dict[Any, Counter] = {}

    def add(self, key: Any, conversation: Any) -> None:
        """List `conversation` under `key`, where it was not listed yet."""
        if id(conversation) in self._under:
            return
        listed = self._listed.setdefault(key, [])
        self._under[id(conversation)] = (key, len(listed))
        listed.append(conversation)

    def changed(self, conversation: Any) -> None:
        """The conversation's last request is another now."""
        self._changed[id(conversation)] = conversation

    def found(self, key: Any, rest, latest_first: bool = False) -> list:
        """The conversations listed under `key` whose end is (n, r) for some n and some r of `rest(n)`, in the order
        they were listed (the latest first, with `latest_first`)."""
        self._refile()
        by_end, found = self._by_end.get(key, {}), []
        for length in self._lengths.get(key, ()):
            for wanted in rest(length):
                found.extend(by_end.get((length, wanted), {}).values())
        found.sort(key=lambda conversation: self._under[id(conversation)][1], reverse=latest_first)
        return found

    def _refile(self) -> None:
        for number, conversation in self._changed.items():
            if number not in self._under:
                continue
            key = self._under[number][0]
            if (old := self._filed.pop(number, None)) is not None:
                del self._by_end[key][old][number]
                if not self._by_end[key][old]:
                    del self._by_end[key][old]
                _count_down(self._lengths[key], old[0])
            end = self._filed[number] = self._end(conversation)
            self._by_end.setdefault(key, {}).setdefault(end, {})[number] = conversation
            self._lengths.setdefault(key, Counter())[end[0]] += 1
        self._changed.clear()
