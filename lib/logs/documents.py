"""Files that are one document rather than one call per line, cut into the elements a format reads.

- an Inspect AI `.eval` (a zip): one element per `samples/*.json` member;
- a VCR cassette (`.yaml`/`.yml`): one element per interaction;
- an httpmock recording (`.yaml`/`.yml`, Rust): one element per exchange, each a YAML document of its own;
- a HAR file (`.har`, or `.json` holding `log.entries`): one element per entry;
- a Go httprr trace (its first line `httprr trace v1`, whatever its name): one element per exchange;
- an Inspect AI `.json` log: one element per sample;
- a Mastra LLM recording file (`{"meta", "recordings"}`): one element per recording;
- an Azure SDK test-proxy recording (`{"Entries", "Variables"}`): one element per entry;
- any other one-object file (`.traj`, `.json`): the object itself.

Elements are numbered from 1 and stand where lines stand in a line-per-call log, so a broken
element is named by its number and the others still load. An element that cannot be had at all
comes out as a string: the problem, in a user's words. Each file's elements come with the word for
one of them (sample, interaction, entry; document for a file read whole or not read at all), which
the upload's summary counts in.

Sizes are capped before anything is inflated: a zip member's or a YAML file's declared size, then
what is actually read, so a zip bomb or a YAML alias bomb is refused instead of filling memory.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from itertools import zip_longest
from typing import Any, Callable, Iterator

import orjson
import yaml

from lib.intern import loads_exact
from lib.logs import httpmock, httprr
from lib.logs.chat_shape import describe
from lib.logs.resent import Refused, check_keys, first_repeat, repeated_words, repeats_marked, skip_whitespace, value_end
from lib.text import json_said

ZIP_MEMBERS_FACTOR = 4
"""All of a zip's members together may inflate to this many times the limit on one element."""

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The C safe loader where PyYAML was built with libyaml; the pure-Python safe loader otherwise."""

MAX_YAML_DEPTH = 256
"""The deepest nesting a YAML file may have, every kind of nesting counted together. Cassettes nest a few dozen
levels. PyYAML composes a document in C by recursion with no guard (200 KB of brackets crash the process), so a
cassette is never composed that way: it is built from libyaml's event stream, which counts the depth as it goes."""

MAX_YAML_NODES = 2_500_000
"""The most YAML events (one per scalar, two per list or mapping) a cassette may hold: a 1,000-call cassette with
YAML bodies holds 850,000. A file of 4-byte `- a` lines is a value per 4 bytes (64 MB of them, 64 KB gzipped, held
gigabytes), so the events are counted as they come and the file refused at the limit."""

ZIP_SIGNATURE = b"PK\x03\x04"
ZIP_DIRECTORY_ENTRY = b"PK\x01\x02"
"""How each entry of a zip's central directory begins; zipfile reads no entry without it."""
MAX_ZIP_MEMBERS = 50_000
"""The most members an `.eval` zip may list. zipfile builds an object for every entry before any is read, and each
empty sample is a problem: 300,000 empty members (a 38 MB file) took 264 MB and 10 s."""
ENCRYPTED = 0x1
"""The general-purpose flag bit of a zip member that is encrypted."""
ONE_DOCUMENT_SUFFIXES = (".traj", ".har")
YAML_SUFFIXES = (".yaml", ".yml")

Element = tuple[int, "dict | str"]
Elements = tuple[str, Iterator[Element]]
"""What one element is called ("sample", "interaction", "entry", "document"), and the elements."""
WHOLE = "document"
"""What a file read as one object, or one that could not be read, counts as."""


def elements(name: str, data: bytes, limit: int, loads: Callable[[bytes], Any] = loads_exact) -> Elements | None:
    """The file's elements, and what one is called, when it is one document; None for a file read line by line.
    `limit` is the most bytes one element (or a whole YAML or JSON document) may take; `loads` parses
    a JSON document (raising what orjson.loads raises), given so the caller's shortcuts apply to it."""
    lower = name.lower().removesuffix(".gz")  # a `.yaml.gz` cassette arrives here already opened
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if data[:4] == ZIP_SIGNATURE and (lower.endswith(".eval") or zipfile.is_zipfile(io.BytesIO(data))):
        # A line log whose first bytes merely look like a zip's is still read line by line.
        return _zip_samples(data, limit)
    if httprr.is_trace(data):  # known by its first line: langchaingo names them `.httprr`, others as they like
        return httprr.UNIT, httprr.exchanges(data, limit)
    if lower.endswith(YAML_SUFFIXES):
        return _cassette(data, limit)
    if lower.endswith(ONE_DOCUMENT_SUFFIXES) or (lower.endswith(".json") and data.lstrip()[:1] == b"{"):
        return _json_document(data, limit, required=not lower.endswith(".json"), loads=loads)
    return None


def _too_large(size: int, limit: int) -> str:
    return f"is too large ({size:,} bytes; the limit is {limit:,})"


def _json_document(data: bytes, limit: int, required: bool, loads: Callable[[bytes], Any]) -> Elements | None:
    if len(data) > limit:
        return _refused(_too_large(len(data), limit))
    try:
        document = loads(data)
    except Refused as exc:  # read whole, it has no elements to keep apart from the one that readers disagree on
        return _refused(exc.skipping(WHOLE))
    except orjson.JSONDecodeError as exc:
        if required or b"\n{" not in data.lstrip():  # a `.json` of several objects is a line log: the line reader takes it
            salvaged = _salvaged(data, exc, loads)
            if salvaged is not None:
                return salvaged
        return _refused(f"is not one JSON document ({json_said(exc, 'file', exc.lineno)})") if required else None
    if not isinstance(document, dict):
        return _refused(f"is {describe(document)}, not a JSON object")
    listed = _listed(document)
    if "resourceSpans" not in document:  # an OTLP document's keys were checked as it was read (spans_checked_loads)
        try:
            # As a line is checked (strict_loads): a key written twice is refused, not read as orjson's last value.
            check_keys(data, document)
        except Refused as exc:
            return _repeats_refused(data, listed, exc)
    return _numbered(*listed) if listed is not None else (WHOLE, iter([(1, document)]))


def _listed(document: dict) -> tuple[list, str] | None:
    """The list a one-document file holds its elements in, and what one is called; None for a document read whole."""
    log = document.get("log")
    if isinstance(log, dict) and isinstance(log.get("entries"), list):
        return log["entries"], "entry"
    if isinstance(document.get("samples"), list) and isinstance(document.get("eval"), dict):
        return document["samples"], "sample"
    if isinstance(document.get("recordings"), list) and isinstance(document.get("meta"), dict):
        return document["recordings"], "recording"  # Mastra's LLM recordings (lib/logs/llm_recorder.py)
    if isinstance(document.get("Entries"), list):
        return document["Entries"], "entry"  # Azure SDK test-proxy recordings (lib/logs/test_proxy.py)
    if isinstance(document.get("mappings"), list) and "request" not in document:
        return document["mappings"], "mapping"  # WireMock's stubs, several in one file (lib/logs/wiremock.py)
    return None


def _repeats_refused(data: bytes, listed: tuple[list, str] | None, refused: Refused) -> Elements:
    """A document that writes a key twice: each element that does refused in the words a line's repeat gets, the others
    read; the whole document where the repeat is outside its elements or it has none."""
    again = repeats_marked(data) if listed is not None else None
    marked = _listed(again) if isinstance(again, dict) else None
    if marked is None or len(marked[0]) != len(listed[0]) or first_repeat(again, besides=marked[0]) is not None:
        return _refused(refused.skipping(WHOLE))
    items, kind = listed
    refusals = {number: Refused(repeated_words(key), ", so ").skipping(kind)
                for number, key in enumerate((first_repeat(item) for item in marked[0]), start=1) if key is not None}
    return kind, ((number, refusals[number]) if number in refusals else
                  (number, item if isinstance(item, dict) else f"{kind} {number} is not an object")
                  for number, item in enumerate(items, start=1))


def _refused(problem: str) -> Elements:
    """A file none of whose elements can be had: one problem, about the document (element 1, the only one)."""
    return WHOLE, iter([(1, problem)])


ELEMENT_ARRAY = re.compile(rb'"(entries|samples)"\s*:\s*\[')
"""Where a HAR keeps its entries and an Inspect log its samples, found in the bytes of a document that does not parse."""


def _salvaged(data: bytes, broken: orjson.JSONDecodeError, loads: Callable[[bytes], Any]) -> Elements | None:
    """A document that does not parse whole (cut off mid-write, one entry damaged): its entries or samples, each
    read on its own so the good ones still load; None when it has no such array."""
    found = ELEMENT_ARRAY.search(data)
    if found is None:
        return None
    kind, kinds = ("entry", "entries") if found.group(1) == b"entries" else ("sample", "samples")

    def read() -> Iterator[Element]:
        whole = True
        for number, element in array_elements(data, found.end() - 1):
            try:
                value = loads(element)
            except (ValueError, RecursionError) as exc:
                whole = False
                yield number, (f"{kind} {number} is not valid JSON ({json_said(exc, kind)}); the file does not parse whole, so its "
                               f"{kinds} were read one by one")
                continue
            yield number, value if isinstance(value, dict) else f"{kind} {number} is not an object"
        if whole:  # the damage lies outside the array: say so, since no entry does
            yield 1, f"is not one JSON document ({broken}); its {kinds} were read one by one"

    return kind, read()


def array_elements(data: bytes, opening: int = 0) -> Iterator[tuple[int, bytes]]:
    """The elements of the JSON array that opens at `opening`, one at a time, so a large array is never held parsed
    whole. Where an element does not parse, the rest of the array goes out as one item, to be reported."""
    position, number, window = opening + 1, 0, 64 * 1024
    while True:
        position = skip_whitespace(data, position)
        if position >= len(data) or data[position] == ord("]"):
            return  # an array cut off right after an element keeps its elements
        number += 1
        end = value_end(data, position, window) or _bracketed_end(data, position)
        if end is None:
            yield number, data[position:]
            return
        yield number, data[position:end]
        window = max(window, 2 * (end - position))
        position = skip_whitespace(data, end)
        if data[position: position + 1] == b",":
            position += 1
        elif position < len(data) and data[position] != ord("]"):
            yield number + 1, data[position:]  # no comma after the element: reported as the next one
            return


STRUCTURE = re.compile(rb'[\\"\[\]{}]')
"""The bytes that delimit JSON values: brackets, quotes, and the backslash that escapes a quote."""


def _bracketed_end(data: bytes, start: int) -> int | None:
    """Where the object or array at `start` closes, counting brackets outside strings: the end of an element that
    does not parse (a NaN, a bad token inside), so the elements after it are still read; None when it never closes."""
    if data[start: start + 1] not in (b"{", b"["):
        return None
    depth, inside, escaped = 0, False, -1
    for match in STRUCTURE.finditer(data, start):
        at, char = match.start(), data[match.start()]
        if at == escaped:
            continue
        if char == ord("\\"):
            escaped = at + 1 if inside else escaped
        elif char == ord('"'):
            inside = not inside
        elif not inside:
            depth += 1 if char in b"[{" else -1
            if depth == 0:
                return at + 1
    return None


def _numbered(items: list, kind: str) -> Elements:
    return kind, ((number, item if isinstance(item, dict) else f"{kind} {number} is not an object")
                  for number, item in enumerate(items, start=1))


SAMPLE_MEMBER = re.compile(r"samples/(.+)_epoch_([0-9]{1,9})\.json")
"""An `.eval` zip's sample member: `samples/<id>_epoch_<n>.json`."""


def _sample_order(member: zipfile.ZipInfo) -> tuple:
    """Sample id, then epoch, as Inspect's viewer lists them: ids that are numbers by value, before named ones;
    a member named otherwise after them all, in zip order."""
    named = SAMPLE_MEMBER.fullmatch(member.filename)
    if named is None:
        return (2,)
    id_, epoch = named[1], int(named[2])
    if id_.isascii() and id_.isdigit():
        number = id_.lstrip("0")
        return 0, len(number), number, epoch  # by value, and no int() of a thousand digits
    return 1, id_, epoch


def _zip_samples(data: bytes, limit: int) -> Elements:
    """The samples of an Inspect `.eval` zip, by sample id then epoch (the zip holds them as they were written),
    each inflated when its turn comes."""
    # Counted on the bytes, not the end record's count, which a zip may set to anything: zipfile reads the whole
    # directory by its size. Signature bytes elsewhere in the file can only make the count larger.
    listed = data.count(ZIP_DIRECTORY_ENTRY)
    if listed > MAX_ZIP_MEMBERS:
        return _refused(f"the .eval (zip) file lists {listed:,} members; the limit is {MAX_ZIP_MEMBERS:,}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = sorted((m for m in archive.infolist() if m.filename.startswith("samples/")
                          and m.filename.endswith(".json")), key=_sample_order)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        return _refused(f"is not a readable .eval (zip) file ({exc})")
    if not members:
        return _refused("is a zip without samples/*.json (not an Inspect AI .eval log)")
    return "sample", _inflated(archive, members, limit)


def _inflated(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], limit: int) -> Iterator[Element]:
    budget = ZIP_MEMBERS_FACTOR * limit
    for number, member in enumerate(members, start=1):
        where = f"{member.filename} (sample {number})"
        if member.file_size > min(limit, budget):
            yield number, f"{where} inflates to {member.file_size:,} bytes; the limit is {min(limit, budget):,}"
            continue
        if member.flag_bits & ENCRYPTED:  # zipfile would raise RuntimeError, asking for a password
            yield number, f"{where} is encrypted; Roundtrip reads no password-protected member"
            continue
        try:
            with archive.open(member) as stream:
                raw = stream.read(member.file_size + 1)  # never trust the declared size alone
            sample = loads_exact(raw)
            check_keys(raw, sample)  # as a line is checked (strict_loads)
        except (zlib.error, EOFError) as exc:  # a damaged stretch inside the member's deflated bytes
            yield number, f"{where} is damaged: its compressed data does not inflate ({exc})"
            continue
        except Refused as exc:
            yield number, f"{where} {exc.skipping('sample')}"
            continue
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, orjson.JSONDecodeError) as exc:
            yield number, f"{where} cannot be read ({exc})"
            continue
        budget -= len(raw)
        yield number, sample if isinstance(sample, dict) else f"{where} is not a JSON object"


def _cassette(data: bytes, limit: int) -> Elements:
    """A cassette's interactions, loaded with a safe loader only."""
    if len(data) > limit:
        return _refused(_too_large(len(data), limit))
    try:
        documents = load_yaml_stream(data)
    except TooMany as exc:
        return _refused(f"holds more than {MAX_YAML_NODES:,} YAML nodes by line {exc.line:,}, which no cassette does; "
                        "refused")
    except TooDeep as exc:
        return _refused(f"nests deeper than {MAX_YAML_DEPTH} levels at line {exc.line:,}, which no cassette does; "
                        "refused")
    except SharedNode:
        return _refused("uses YAML anchors and aliases (&name / *name), which cassettes never do; refused")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # libyaml marks a file that ends mid-token on the line after its last one: name the last line instead.
        line = min(mark.line + 1, data.count(b"\n") + (not data.endswith(b"\n"))) if mark is not None else 1
        where = f" at line {line}" if mark is not None else ""
        return _refused(f"is not valid YAML{where} ({getattr(exc, 'problem', exc)})")  # one document: its number, 1
    if any(httpmock.is_exchange(document) for document in documents):
        # An httpmock recording (Rust): a document per exchange, each a `when` and a `then`.
        return _numbered(documents, "interaction")
    document = documents[-1] if documents else None
    interactions = document.get("interactions") if isinstance(document, dict) else None
    if interactions is None and isinstance(document, dict):
        # Ruby's VCR and R's vcr (ruby_llm, ellmer, langchainrb): the same request/response pairs under this name.
        interactions = document.get("http_interactions")
    if interactions is None and isinstance(document, dict) and isinstance(document.get("requests"), list) \
            and isinstance(document.get("responses"), list):
        # vcrpy's cassette as it holds it in memory, the requests and the responses in two lists of one order: what
        # LangChain's test serializer (langchain-tests, every partner package's `.yaml.gz` cassettes) writes.
        interactions = [{"request": request, "response": response}
                        for request, response in zip_longest(document["requests"], document["responses"])]
    if not isinstance(interactions, list):
        return _refused("has no 'interactions' (nor 'http_interactions') list, nor 'requests' beside 'responses' "
                        "(not a VCR cassette), nor a 'when' beside a 'then' (not an httpmock recording)")
    return _numbered(interactions, "interaction")


class SharedNode(Exception):
    """A YAML node reached twice: an alias (`*name`), and the way an alias bomb multiplies itself."""


class PastLimit(Exception):
    """YAML that goes past one of the limits on a cassette, found at `line`."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line
        """The 1-based line where the file went past the limit."""


class TooDeep(PastLimit):
    """YAML nested deeper than MAX_YAML_DEPTH."""


class TooMany(PastLimit):
    """YAML of more than MAX_YAML_NODES events."""


class _Unusual(Exception):
    """A node the plain construction does not take (a merge key, a set, an unhashable key, a custom tag)."""


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_BINARY = "tag:yaml.org,2002:binary"
RUBY_BINARY = "!binary"
"""How Ruby's YAML (Psych) tags a binary string, as Ruby's VCR writes every body that is not UTF-8 text
(`string: !binary |-`): YAML 1.1's `!!binary` written with the primary handle, base64 the same."""
_SCALARS = {tag: build for tag, build in yaml.constructor.SafeConstructor.yaml_constructors.items()
            if tag and tag.rsplit(":", 1)[-1] in ("null", "bool", "int", "float", "binary", "timestamp")}
"""Scalar tags a cassette may hold besides text (`!!binary` bodies, status codes), built as the safe loader builds them."""


class _Loader(YAML_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, its tag resolution cut to what a safe load does: no path resolvers to follow,
    and a quoted scalar is text without trying the patterns (most of a cassette's scalars are quoted)."""

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is not yaml.ScalarNode:
            return _SEQ if kind is yaml.SequenceNode else _MAP
        if implicit[0]:
            for tag, pattern in self.yaml_implicit_resolvers.get(value[:1], []) + self._WILDCARDS:
                if pattern.match(value):
                    return tag
        return _STR

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None

    _WILDCARDS = list(YAML_LOADER.yaml_implicit_resolvers.get(None, ()))


_Loader.add_constructor(RUBY_BINARY, yaml.constructor.SafeConstructor.construct_yaml_binary)  # when left to it


def load_yaml(data: bytes) -> Any:
    """The YAML document, as the safe loader reads it (of a stream of several, the last); see load_yaml_stream."""
    documents = load_yaml_stream(data)
    return documents[-1] if documents else None


def load_yaml_stream(data: bytes) -> list[Any]:
    """Every document of the YAML stream (most files hold one; an httpmock recording one per exchange, after `---`),
    as the safe loader reads them; raises SharedNode at the first alias, TooDeep past MAX_YAML_DEPTH levels and
    TooMany past MAX_YAML_NODES events (counted over the whole stream), each before any document is built.

    Built straight from libyaml's events with a stack of our own, never by recursion, so no nesting can overflow the
    C stack; and since almost every node of a cassette is a plain mapping, list or string, this is several times
    faster than composing nodes and constructing them. Anything else (a merge key, a set, a composite key) is left to
    the safe constructor, once the whole stream has been checked."""
    loader = _Loader(data)
    try:
        documents = _from_events(loader)
    finally:
        loader.dispose()
    if documents is not _UNUSUAL:
        return documents
    loader = _Loader(data)
    try:
        built = []
        while loader.check_node():  # safe to compose now: the stream was checked to its end
            built.append(loader.construct_document(loader.get_node()))
        return built
    except UNBUILDABLE as exc:
        raise _unreadable(exc, None) from None
    finally:
        loader.dispose()


_UNUSUAL = object()
"""What _from_events returns for a document it leaves to the safe constructor."""
_NO_KEY = object()
"""A mapping's pending key before its key is read."""


def _from_events(loader: Any) -> Any:
    """The documents built from the loader's events, or _UNUSUAL (after every event was still counted and checked)."""
    stack: list[Any] = []  # the enclosing lists and mappings
    here: Any = None  # the list or dict being filled; None at the top
    key: Any = _NO_KEY
    documents: list[Any] = []
    building, events = True, 0
    value: Any = None
    while (event := loader.get_event()) is not None:
        events += 1
        if events > MAX_YAML_NODES:
            raise TooMany(event.start_mark.line + 1)
        kind = type(event)
        if kind is yaml.AliasEvent:
            raise SharedNode
        if kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            here, key = stack.pop(), _NO_KEY  # a mapping's pending key was this collection's
            continue
        if kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if len(stack) >= MAX_YAML_DEPTH:
                raise TooDeep(event.start_mark.line + 1)
            if building and kind is yaml.SequenceStartEvent and _is_header_name(event.tag) \
                    and _is_text(loader.peek_event()):
                value, events = loader.get_event().value, events + 1
                if type(loader.peek_event()) is not yaml.SequenceEndEvent:
                    stack.append(here)
                    building = False
                    continue
                loader.get_event()
                events += 1
                kind = yaml.ScalarEvent  # placed as the text it is, a mapping's key most often
            else:
                stack.append(here)
                if not building:
                    continue
                if (not event.implicit and event.tag not in (_MAP, _SEQ)) or (type(here) is dict and key is _NO_KEY):
                    building = False  # a tagged collection (`!!set`), or a collection as a mapping's key
                    continue
                value = {} if kind is yaml.MappingStartEvent else []
        elif kind is yaml.ScalarEvent:
            if not building:
                continue
            try:
                value = _scalar(event, loader)
            except _Unusual:
                building = False
                continue
        else:
            continue  # the stream's and the document's start and end
        if here is None:
            documents.append(value)
        elif type(here) is list:
            here.append(value)
        elif key is _NO_KEY:
            key = value
            continue
        else:
            here[key] = value
            key = _NO_KEY
        if kind is not yaml.ScalarEvent:
            here, key = value, _NO_KEY
    return documents if building else _UNUSUAL


_MULTIDICT = "tag:yaml.org,2002:python/object/apply:multidict."
"""How PyYAML tags an object of multidict's, built by a call (what a safe load refuses)."""


def _is_header_name(tag: str | None) -> bool:
    """Whether a tagged list is a header name as aiohttp holds it: vcrpy's aiohttp stub keeps multidict's istr keys,
    and PyYAML writes each as `!!python/object/apply:multidict._multidict.istr [Name]` (the C or the Python build)."""
    return tag is not None and tag.startswith(_MULTIDICT) and tag.endswith(".istr")


def _is_text(event: Any) -> bool:
    """Whether an event is a scalar read as text (an istr's one argument; PyYAML quotes a name that would not be)."""
    return type(event) is yaml.ScalarEvent and event.tag in (None, "!", _STR)


def _scalar(event: yaml.ScalarEvent, loader: Any) -> Any:
    """A scalar event's value as the safe loader builds it; _Unusual for a tag left to the safe constructor."""
    tag = event.tag
    if tag is None:
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    elif tag == "!":
        tag = _STR
    elif tag == RUBY_BINARY:
        tag = _BINARY
    if tag == _STR:
        return event.value
    build = _SCALARS.get(tag)
    if build is None:
        raise _Unusual
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return build(loader, node)
    except UNBUILDABLE as exc:
        raise _unreadable(exc, node) from None


UNBUILDABLE = (ValueError, KeyError, AttributeError, TypeError, OverflowError)
"""What the safe constructor raises, not as a YAML error, on a scalar it cannot build: a 5,000-digit int (Python's
limit on int()), month 13, `!!bool maybe`, `!!timestamp 'not a time'`."""


def _unreadable(exc: Exception, node: yaml.Node | None) -> yaml.constructor.ConstructorError:
    """The failure as the YAML error it is, marked at the scalar when it is known. Only a ValueError's words are
    a reason a person can read (the others are the constructor's own KeyError or AttributeError)."""
    why = f" ({exc})" if isinstance(exc, ValueError) else ""
    what = f"the {node.tag.rsplit(':', 1)[-1]} {node.value[:40]!r}" if node is not None else "a value"
    return yaml.constructor.ConstructorError(None, None, f"{what} cannot be read{why}",
                                             node.start_mark if node is not None else None)
