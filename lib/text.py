"""Turning untrusted trace text into safe, short display strings. No Streamlit here."""

from __future__ import annotations

import json
import re

from lib.model import Message

_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def show_controls(text: str) -> str:
    """The text with its bidirectional controls written out (`[U+202E]`): none can reverse what is shown after it."""
    return _BIDI_CONTROLS.sub(lambda found: f"[U+{ord(found.group()):04X}]", text)


def shorten(text: str, limit: int = 90) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def as_code(value) -> tuple[str, str | None]:
    """Text for a code block and its language: strings exactly as sent, other values as indented JSON."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or JSON nested past what Python reads: shown as text
            return value, None
        return value, "json"
    return json.dumps(value, ensure_ascii=False, indent=2), "json"


def summarize_message(message: Message, limit: int = 90) -> str:
    """A one-line summary of a message for a table row."""
    pieces = []
    for part in message.parts:
        if part.kind == "text":
            pieces.append(part.text)
        elif part.kind == "tool-call":
            pieces.append(f"calls {part.name}({part.arguments_raw}) [{part.id}]")
        elif part.kind == "tool-result":
            pieces.append(f"result for {part.call_id}: {part.content}")
        else:
            pieces.append(f"[{part.type}]")
    return shorten(" · ".join(pieces) or "(empty)", limit)


def figure(value, spec: str = ",") -> str:
    """A number formatted with `spec`; anything else (a log's string where a number belongs) as it is."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format(value, spec)
    return str(value)


def milliseconds(value) -> str:
    """A duration in milliseconds as a person reads it: two significant digits under 10 (0.39), whole above (1,204)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format(value, ".2g") if abs(value) < 10 else format(round(value), ",")
    return str(value)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 tool`, `4 tools`."""
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
"""The ordinals a sentence spells out; past the tenth they are written in figures."""


def ordinal(count: int) -> str:
    """`second`, `fourth`, `12th`, `21st`: how many times something has happened, as a sentence says it."""
    if 1 <= count <= len(ORDINALS):
        return ORDINALS[count - 1]
    suffix = "th" if 10 <= count % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(count % 10, "th")
    return f"{count:,}{suffix}"


def rounds_named(rounds: list[int]) -> str:
    """Rounds by number, in words: `round 3`, `rounds 1, 2 and 3`, or past five, how many (`12 rounds`)."""
    if len(rounds) == 1:
        return f"round {rounds[0]}"
    if len(rounds) <= 5:
        return f"rounds {', '.join(map(str, rounds[:-1]))} and {rounds[-1]}"
    return f"{len(rounds):,} rounds"


def with_article(noun: str) -> str:
    """`a OpenAI…` is wrong and so is `a Anthropic…`: the article the noun's first sound takes, and the noun."""
    return f"{'an' if noun[:1].lower() in 'aeio' else 'a'} {noun}"


_TERMINAL_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
"""What a terminal acts on instead of printing: C0 and C1 controls (ESC, line breaks), DEL, bidi controls."""


def terminal_safe(line: str) -> str:
    """One line a terminal prints as it reads: each control as a visible escape that JSON reads too (`\\u001b`)."""
    return _TERMINAL_CONTROLS.sub(lambda found: f"\\u{ord(found.group()):04x}", line)


def json_place(error: json.JSONDecodeError, unit: str, line: int | None = None) -> str:
    """Where in the item (`unit`: a line, an array's element, the arguments) parsing stopped. The parser counts lines
    within the item it was given, so its own "line 1 column 2" would read as a second line number beside a file's:
    said as a place in the item. `line` is the file's line it stopped on, where the item is a whole file over many
    lines (one JSON document): the problem is numbered as the document, and that line is said here."""
    if not error.doc[error.pos:].strip():
        return f"at the end of the {unit}" + (f", line {line:,}" if line is not None else "")
    if line is not None:
        return f"at line {line:,}, character {error.colno:,}"
    if error.lineno == 1:
        return f"at character {error.colno:,} of the {unit}"
    return f"at line {error.lineno:,}, character {error.colno:,} of the {unit}"


JSON_WORDS = (
    # (what the parser's message begins with, what is wrong in our words): orjson's messages, then the standard
    # library's (the readers that fall back to it, for NaN or a lone surrogate, say its words).
    ("unexpected character, expected ',' or '}'", "a value inside an object is followed by neither ',' nor '}': a "
                                                  "comma left out?"),
    ("unexpected character, expected ',' or ']'", "a value inside an array is followed by neither ',' nor ']': a "
                                                  "comma left out?"),
    ("unexpected character, expected ':' after key", "a key is not followed by ':'"),
    ("unexpected character, expected a string key", "a key is not a string in double quotes: unquoted, in single "
                                                    "quotes, or after a comma too many"),
    ("unexpected character, expected a JSON value", "no JSON value where one should be: NaN, a bare word or a "
                                                    "single-quoted string is none"),
    ("unexpected end of data", "cut short: the JSON stops before it is complete"),
    ("trailing comma is not allowed", "a comma before a closing bracket, which JSON does not allow"),
    ("invalid literal", "a bare word that is none of JSON's three: true, false, null"),
    ("unexpected content after document", "more follows after its one JSON value has ended"),
    ("invalid escaped sequence in string", "a string holds a backslash escape that JSON does not have"),
    ("unexpected control character in string", "a string holds a control character, such as a tab or a line "
                                               "break, written as itself where JSON wants it escaped: \\t, \\n"),
    ("number with leading zero is not allowed", "a number begins with 0, which JSON does not allow"),
    ("no digit after sign", "a number has no digit after its sign"),
    ("no digit after decimal point", "a number has no digit after its decimal point"),
    ("no digit after exponent sign", "a number has no digit in its exponent"),
    ("number is infinity when parsed as double", "a number too large for any computer to hold"),
    ("Input is a zero-length, empty document", "there is nothing in it"),
    ("unexpected character", "a character that has no place there in JSON"),
    ("Expecting value", "no JSON value where one should be: NaN, a bare word or a single-quoted string is none"),
    ("Expecting ',' delimiter", "a ',' is missing between two values"),
    ("Expecting ':' delimiter", "a key is not followed by ':'"),
    ("Expecting property name enclosed in double quotes", "a key is not a string in double quotes: unquoted, in single "
                                                          "quotes, or after a comma too many"),
    ("Illegal trailing comma", "a comma before a closing bracket, which JSON does not allow"),
    ("Extra data", "more follows after its one JSON value has ended"),
    ("Unterminated string", "a string has no closing double quote"),
    ("Invalid control character", "a string holds a control character, such as a tab or a line break, written as "
                                  "itself where JSON wants it escaped: \\t, \\n"),
    ("Invalid \\escape", "a string holds a backslash escape that JSON does not have"),
    ("Invalid \\u", "a string holds a \\u escape that is not four hexadecimal digits"),
)
"""What a JSON parser's messages say is wrong, in a user's words, the longest match first where one begins another."""


def json_words(error: json.JSONDecodeError) -> str:
    """What is wrong with JSON that does not parse, in our words: the parser's own message (`invalid literal`,
    `Expecting value`) means little to someone reading a log; one we have no words for is kept as the parser wrote
    it."""
    said = error.msg
    if "surrogate" in said:
        return "a string holds half of a \\u escape pair, a lone surrogate"
    return next((words for start, words in JSON_WORDS if said.startswith(start)), said)


def json_said(error: ValueError, unit: str, line: int | None = None) -> str:
    """Where JSON that does not parse goes wrong and what is wrong, in our words (json_place, json_words): `at
    character 7 of the line: a bare word ...`; any other error (bytes that are not UTF-8) as it says itself."""
    if not isinstance(error, json.JSONDecodeError):  # orjson's error is one
        return str(error)
    if not error.doc[error.pos:].strip() and error.doc.strip():
        # Stopped at the end with something read: cut short, whatever the parser expected next (the standard library
        # says "Expecting ',' delimiter" of `{"a": 1`).
        return f"{json_place(error, unit, line)}: {json_words(json.JSONDecodeError('unexpected end of data', '', 0))}"
    return f"{json_place(error, unit, line)}: {json_words(error)}"


def as_sentence(words: str) -> str:
    """Words said inside a figure's brackets, written as a sentence of their own beside it: capital, full stop."""
    return f"{words[0].upper()}{words[1:]}." if words else ""
