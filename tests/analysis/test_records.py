import dataclasses
from dataclasses import dataclass, field

import pytest

from jax_lsp.analysis.records import direct_init
from jax_lsp.analysis.summary import FunctionRef


@direct_init
@dataclass(frozen=True)
class _Record:
    name: str
    count: int = 0
    seen: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Plain:
    name: str
    count: int = 0
    seen: dict[str, int] = field(default_factory=dict)


def test_a_direct_init_builds_what_the_dataclass_init_builds():
    for args, kwargs in [(("a",), {}), (("a", 2), {}), (("a",), {"seen": {"b": 1}})]:
        direct, plain = _Record(*args, **kwargs), _Plain(*args, **kwargs)
        assert dataclasses.astuple(direct) == dataclasses.astuple(plain)
    assert _Record("a") == _Record("a", 0) != _Record("a", 1)
    assert hash(FunctionRef("f", ())) == hash(FunctionRef("f", (), None, 0))
    assert _Record("a").seen is not _Record("a").seen  # a factory's value per instance
    assert dataclasses.replace(_Record("a"), count=3) == _Record("a", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        _Record("a").name = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Record()  # type: ignore[call-arg]


def test_only_frozen_dataclasses_of_plain_fields_take_a_direct_init():
    @dataclass
    class Mutable:
        name: str

    @dataclass(frozen=True)
    class Checked:
        name: str

        def __post_init__(self) -> None:
            pass

    for cls in (Mutable, Checked):
        with pytest.raises(TypeError):
            direct_init(cls)
