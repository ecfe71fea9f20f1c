"""The model's hot frozen dataclasses are built by `lib.model.built_fast`'s constructor: it takes the
parameters the dataclass's own would take, in the same order and with the same defaults, makes a
fresh default per instance where the field asks for one, and the instance stays frozen."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from lib import model

BUILT_FAST = [cls for cls in vars(model).values()
              if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__init__.__module__ == "lib.model"
              and cls.__init__.__code__.co_filename == "<string>" and "_set0" in cls.__init__.__code__.co_names]


def test_the_hot_classes_are_built_fast():
    assert {cls.__name__ for cls in BUILT_FAST} >= {"TextPart", "ToolCallPart", "Message", "Usage", "Execution",
                                                    "Request", "Response", "Round"}


@pytest.mark.parametrize("cls", BUILT_FAST, ids=lambda cls: cls.__name__)
def test_the_constructor_takes_the_dataclass_fields_with_their_defaults(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in parameters] == [f.name for f in dataclasses.fields(cls)]
    for parameter, found in zip(parameters, dataclasses.fields(cls)):
        if found.default is not dataclasses.MISSING:
            assert parameter.default is found.default
        else:
            assert (parameter.default is inspect.Parameter.empty) == (found.default_factory is dataclasses.MISSING)


@pytest.mark.parametrize("cls", BUILT_FAST, ids=lambda cls: cls.__name__)
def test_an_instance_holds_what_it_was_given_and_stays_frozen(cls):
    required = [f for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    given = {f.name: f"{f.name} value" for f in required}
    first, second = cls(**given), cls(*given.values())
    for found in dataclasses.fields(cls):
        expected = given.get(found.name, found.default)
        if found.default_factory is not dataclasses.MISSING:
            expected = found.default_factory()
            assert getattr(first, found.name) is not getattr(second, found.name)  # made per instance
        assert getattr(first, found.name) == expected == getattr(second, found.name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(first, dataclasses.fields(cls)[0].name, "changed")
    if required:
        assert getattr(dataclasses.replace(first, **{required[0].name: "other"}), required[0].name) == "other"


def test_a_class_whose_own_constructor_does_more_is_refused_not_built_wrong():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        value: int

        def __post_init__(self):
            raise ValueError("checked")

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Named:
        value: int

    for cls in (Checked, Named):
        with pytest.raises(TypeError, match="built_fast cannot build"):
            model.built_fast(cls)
