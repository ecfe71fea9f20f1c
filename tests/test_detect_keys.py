"""Detection asks a format only of objects holding one of its `detect_keys` (lib.logs.upload._detect): each key set
declared must be one without which the format's rules never recognize an object, or a line of that format would go to
a later one, or match none."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import orjson
import pytest
import yaml

from bench import import_otlp
from lib.logs import FORMATS
from lib.logs.upload import _detect, read_upload

FIXTURES = Path(__file__).parent / "fixtures"

DECLARED = [cls for cls in FORMATS if cls.detect_keys is not None]


def _objects(value: Any, depth: int = 0) -> Iterator[dict]:
    """Every object inside a parsed value (the elements a container file is cut into are among them)."""
    if depth > 12:
        return
    if isinstance(value, dict):
        yield value
        children = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return
    for child in children:
        yield from _objects(child, depth + 1)


def _fixture_objects() -> Iterator[tuple[str, list[dict]]]:
    """(file name, its objects in order) for every fixture of tests/fixtures and its containers folder."""
    for path in sorted([*FIXTURES.glob("*.*"), *(FIXTURES / "containers").glob("*.*")]):
        data = path.read_bytes()
        try:
            if path.suffix in (".yaml", ".yml"):
                values = list(yaml.safe_load_all(data))
            elif path.suffix in (".json", ".har", ".traj"):
                values = [orjson.loads(data)]
            else:
                values = [orjson.loads(line) for line in data.splitlines() if line.strip()]
        except (ValueError, yaml.YAMLError):
            continue  # a fixture of damage: its readable objects are in other fixtures
        objects = [obj for value in values for obj in _objects(value)]
        if objects:
            yield path.name, objects


def test_every_format_declaring_keys_recognizes_nothing_without_them():
    """Each fixture object, with a format's keys taken out, is not that format's, in the order a file gives them (the
    readers that remember a first line have seen it)."""
    for name, objects in _fixture_objects():
        for cls in DECLARED:
            instance = cls()
            for obj in objects:
                try:
                    instance.detect(obj)  # as a log's lines prime the readers that remember a first line
                except Exception:  # noqa: BLE001 - as detection treats it
                    pass
                stripped = {key: value for key, value in obj.items() if key not in cls.detect_keys}
                try:
                    rule = instance.detect(stripped)
                except Exception:  # noqa: BLE001 - a rule that cannot read the object does not recognize it
                    rule = None
                assert not rule, f"{cls.name} recognizes an object of {name} without {sorted(cls.detect_keys)}: {rule}"


@pytest.mark.parametrize("cls", DECLARED, ids=lambda cls: cls.name)
def test_each_declaring_format_recognizes_some_fixture_object_holding_its_keys(cls):
    """The keys are the format's own: its fixtures' objects hold them (a key set naming nothing the format reads
    would pass the test above while sending every line of that format elsewhere)."""
    for name, objects in _fixture_objects():
        instance = cls()
        for obj in objects:
            try:
                rule = instance.detect(obj)
            except Exception:  # noqa: BLE001
                continue
            if rule:
                assert not cls.detect_keys.isdisjoint(obj), f"{cls.name} recognizes an object of {name} without its keys"
                return
    pytest.skip(f"no fixture object is {cls.name}'s")


def test_detection_with_the_keys_picks_what_asking_every_format_picks():
    """Over every fixture object, the remembered askable formats give the format and rule asking all of them gives."""
    instances, askable = [cls() for cls in FORMATS], {}
    every = [cls() for cls in FORMATS]
    for _, objects in _fixture_objects():
        for obj in objects:
            chosen, rule = _detect(instances, obj, None, askable)
            everyone, said = _asking_every(every, obj)
            assert (chosen and chosen.name, rule) == (everyone and everyone.name, said)


def _asking_every(instances: list, obj: dict) -> tuple[Any, str]:
    """Detection as it was before the keys: every format asked, in order."""
    for instance in instances:
        try:
            rule = instance.detect(obj)
        except Exception:  # noqa: BLE001
            continue
        if rule:
            return instance, rule
    return None, ""


def test_a_collector_line_is_asked_of_the_span_reader_first():
    """A Collector file exporter's line, `{"resourceSpans": [...]}`, is no earlier format's: none of them is asked."""
    instances, askable = [cls() for cls in FORMATS], {}
    chosen, rule = _detect(instances, {"resourceSpans": []}, None, askable)
    assert chosen.name == "spans" and "resourceSpans" in rule
    places = askable[frozenset({"resourceSpans"})]
    assert instances[places[0]].name == "spans"


def test_a_collector_file_reads_the_same_rounds():
    """The bench's collector lines (a slice) import to the conversations they did: 5 interleaved conversations."""
    per_line, _ = import_otlp.main_log_otlp()
    lines = per_line.splitlines()[:50]
    upload = read_upload([("otlp.jsonl", b"\n".join(lines) + b"\n")])
    assert upload.rounds == 50 and len(upload.conversations) == 5
    assert upload.formats["spans"][0] == 50 and not upload.problems


def test_what_detection_remembers_is_bounded():
    """A file built to show a new set of keys on every line, or thousands of keys on one, is detected as before and
    leaves no more than ASKABLE_SETS small sets remembered."""
    from lib.logs.upload import ASKABLE_KEYS, ASKABLE_SETS

    instances, askable = [cls() for cls in FORMATS], {}
    wide = {f"k{n}": n for n in range(5_000)}
    assert _detect(instances, wide, None, askable) == _asking_every(instances, wide)
    assert not askable
    for n in range(ASKABLE_SETS + 50):
        obj = {f"odd{n}": 1, "request": {"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
               "response": {"choices": []}}
        chosen, rule = _detect(instances, obj, None, askable)
        everyone, said = _asking_every([cls() for cls in FORMATS], obj)
        assert (chosen and chosen.name, rule) == (everyone and everyone.name, said)
    assert len(askable) == ASKABLE_SETS and all(len(keys) <= ASKABLE_KEYS for keys in askable)
