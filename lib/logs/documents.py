"""Files that are one document rather than one call per line, cut into the elements a format reads.

- an Inspect AI `.eval` (a zip): one element per `samples/*.json` member;
- a VCR cassette (`.yaml`/`.yml`): one element per interaction;
- a HAR file (`.har`, or `.json` holding `log.entries`): one element per entry;
- an Inspect AI `.json` log: one element per sample;
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
from functools import cache
from itertools import islice
from typing import Any, Callable, Iterator

import orjson
import yaml

from lib.intern import loads_exact
from lib.logs.chat_shape import describe
from lib.logs.resent import skip_whitespace, value_end

ZIP_MEMBERS_FACTOR = 4
"""All of a zip's members together may inflate to this many times the limit on one element."""

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The C safe loader where PyYAML was built with libyaml; the pure-Python safe loader otherwise."""

MAX_YAML_DEPTH = 256
"""The deepest nesting a YAML file may have. Cassettes nest a few dozen levels; libyaml's composer
recurses in C with no guard (a file of 100,000 `[` crashes the process) and its parser slows down
with the square of flow nesting, so depth is bounded on the bytes before any YAML is parsed."""

MAX_YAML_NODES = 2_500_000
"""The most YAML events (one per scalar, two per list or mapping) a cassette may hold: a 1,000-call cassette with
YAML bodies holds 850,000. Composed, each is a Python node of about 300 bytes: a file of 4-byte `- a` lines held
76 times its size (64 MB, 5 GB; 64 KB gzipped), so a file that may pass the limit is counted first, as a stream that
keeps none of them."""

YAML_DEPTH_STEP = [1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256)]
NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{},\n")
"""Every byte but brackets, commas and line breaks: deleted, what is left bounds a YAML file's depth and size."""
DEEP_INDENT = b"\n" + b" " * MAX_YAML_DEPTH
ENTRY_MARKS = bytes(ord("-") if b in b"-?" else b if b == ord(" ") else ord("\n") for b in range(256))
"""`-` and `?` as `-`, spaces kept, every other byte a line break: what DEEP_ENTRIES searches."""
DEEP_ENTRIES = re.compile(rb"-(?: +-){%d} +" % (MAX_YAML_DEPTH - 1))
"""A line indented MAX_YAML_DEPTH columns, or as many `- ` / `? ` in a row: the only ways to nest that deep in block style.
(Searched in the bytes mapped by ENTRY_MARKS, where the pattern starts on one literal byte that is
rare: 7 times faster than a character class tried at every byte of the file.)"""

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
    except orjson.JSONDecodeError as exc:
        if required or b"\n{" not in data.lstrip():  # a `.json` of several objects is a line log: the line reader takes it
            salvaged = _salvaged(data, exc, loads)
            if salvaged is not None:
                return salvaged
        return _refused(f"is not one JSON document ({exc})") if required else None
    if not isinstance(document, dict):
        return _refused(f"is {describe(document)}, not a JSON object")
    log = document.get("log")
    if isinstance(log, dict) and isinstance(log.get("entries"), list):
        return _numbered(log["entries"], "entry")
    if isinstance(document.get("samples"), list) and isinstance(document.get("eval"), dict):
        return _numbered(document["samples"], "sample")
    return WHOLE, iter([(1, document)])


def _refused(problem: str, line: int = 1) -> Elements:
    """A file none of whose elements can be had: one problem, about the document."""
    return WHOLE, iter([(line, problem)])


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
                yield number, (f"{kind} {number} is not valid JSON ({exc}); the file does not parse whole, so its "
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
        except (zlib.error, EOFError) as exc:  # a damaged stretch inside the member's deflated bytes
            yield number, f"{where} is damaged: its compressed data does not inflate ({exc})"
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
    structure, marks = data.translate(None, NOT_STRUCTURE), data.translate(ENTRY_MARKS, b" ")
    if _nests_too_deep(data, structure, marks):
        return _refused(f"nests deeper than {MAX_YAML_DEPTH} levels, which no cassette does; refused")
    if _too_many_nodes(data, structure, marks):
        return _refused(f"holds more than {MAX_YAML_NODES:,} YAML nodes, which no cassette does; refused")
    try:
        document = load_yaml(data)
    except SharedNode:
        return _refused("uses YAML anchors and aliases (&name / *name), which cassettes never do; refused")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # libyaml marks a file that ends mid-token on the line after its last one: name the last line instead.
        line = min(mark.line + 1, data.count(b"\n") + (not data.endswith(b"\n"))) if mark is not None else 1
        where = f" at line {line}" if mark is not None else ""
        return _refused(f"is not valid YAML{where} ({getattr(exc, 'problem', exc)})", max(line, 1))
    interactions = document.get("interactions") if isinstance(document, dict) else None
    if not isinstance(interactions, list):
        return _refused("has no 'interactions' list (not a VCR cassette)")
    return _numbered(interactions, "interaction")


def _nests_too_deep(data: bytes, structure: bytes, marks: bytes) -> bool:
    """Whether the YAML may nest deeper than MAX_YAML_DEPTH, given its brackets, commas and line breaks and its bytes
    mapped by ENTRY_MARKS with the spaces taken out. Brackets inside quoted strings count too (JSON bodies are
    balanced, so they add only their own depth): an overestimate, never an underestimate. Runs at the speed of
    bytes.translate and numpy, not of a Python loop per byte (a 1,000-call cassette's JSON bodies hold some 350,000
    brackets)."""
    if len(structure) > MAX_YAML_DEPTH:
        import numpy as np  # here, not at the top: only a file of some size pays for loading numpy

        steps = _depth_steps()[np.frombuffer(structure, dtype=np.uint8)]
        if int(np.cumsum(steps, dtype=np.int64).max()) > MAX_YAML_DEPTH:
            return True
    if DEEP_INDENT in data:
        return True
    # MAX_YAML_DEPTH `- ` in a row become as many dashes in a row once the spaces are out: a search for them
    # rules most files out at memory speed, and only a file that has them is searched for the exact pattern.
    return b"-" * MAX_YAML_DEPTH in marks and DEEP_ENTRIES.search(data.translate(ENTRY_MARKS)) is not None


@cache
def _depth_steps():
    """YAML_DEPTH_STEP as a numpy array, to be indexed by a whole file's bytes at once."""
    import numpy as np

    return np.array(YAML_DEPTH_STEP, dtype=np.int8)


def _too_many_nodes(data: bytes, structure: bytes, marks: bytes) -> bool:
    """Whether the YAML holds more than MAX_YAML_NODES events, counted by libyaml's parser without composing them
    when a bound read off the bytes does not rule it out. A file that does not parse is left to the loader, which
    names its line."""
    # At most: 4 events a block line (a key, its value, a mapping's start and end), 2 a `- ` or `? ` (a nested list
    # or mapping), 4 a flow collection or a comma (a pair in a mapping), and the stream's and document's 4. Quoted
    # strings count too: an overestimate, so only a file it puts past the limit pays for the exact count.
    bound = 4 * (structure.count(b"\n") + structure.count(b",") + structure.count(b"[") + structure.count(b"{")) \
        + 2 * marks.count(b"-") + 4
    if bound <= MAX_YAML_NODES:
        return False
    try:
        return next(islice(yaml.parse(data, Loader=YAML_LOADER), MAX_YAML_NODES, None), None) is not None
    except yaml.YAMLError:
        return False


class SharedNode(Exception):
    """A YAML node reached twice: an alias (`*name`), and the way an alias bomb multiplies itself."""


class _Unusual(Exception):
    """A node the plain construction does not take (a merge key, a set, an unhashable key, a custom tag)."""


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
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


def load_yaml(data: bytes) -> Any:
    """The YAML document, as the safe loader reads it, raising SharedNode at the first alias.

    The nodes are composed in C (libyaml); building them into dicts, lists and strings here rather
    than with PyYAML's constructor takes a third of the time, since almost every node of a cassette
    is a plain mapping, list or string. Anything else is left to the safe constructor."""
    loader = _Loader(data)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        try:
            return _built(root, loader, set() if b"&" in data else None)  # an alias needs an anchor, `&name`
        except (_Unusual, RecursionError):
            # The depth guard bounds each kind of nesting, not their sum: a file that mixes them past
            # Python's recursion limit is built by the safe constructor, which does not recurse.
            try:
                document = loader.construct_document(root)
            except UNBUILDABLE as exc:
                raise _unreadable(exc, None) from None
        if _shares_nodes(document):
            raise SharedNode
        return document
    finally:
        loader.dispose()


def _built(node: yaml.Node, loader: Any, seen: set[int] | None) -> Any:
    """The node as Python values, each node built once (`seen`: the nodes built so far, None where the file has no
    anchor, so no node can be reached twice): an alias of a string is as much a bomb as one of a list, a megabyte
    body handed to the JSON parser once per interaction that names it."""
    if seen is not None:
        if id(node) in seen:
            raise SharedNode
        seen.add(id(node))
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _MAP or tag == _SEQ:
        if tag == _SEQ:
            return [_built(item, loader, seen) for item in node.value]
        mapping = {}
        for key, value in node.value:
            key = _built(key, loader, seen)
            if isinstance(key, (dict, list)):
                raise _Unusual
            mapping[key] = _built(value, loader, seen)
        return mapping
    build = _SCALARS.get(tag)
    if build is None or not isinstance(node, yaml.ScalarNode):
        raise _Unusual
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


def _shares_nodes(document: Any) -> bool:
    """Whether one list, mapping, string or bytes value is reached twice: the mark of an alias, and of an alias
    bomb, which expands only when walked. Each node is visited once, so the check itself stays small. (Equal short
    strings the safe constructor builds are separate objects; only an alias hands out the same one again.)"""
    seen: set[int] = set()
    pending = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, (dict, list, str, bytes)):
            if id(node) in seen and (isinstance(node, (dict, list)) or len(node) > 64):
                return True
            seen.add(id(node))
            if isinstance(node, (dict, list)):
                pending.extend(node.values() if isinstance(node, dict) else node)
    return False
