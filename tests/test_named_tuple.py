"""The package's record base makes the same classes ``typing.NamedTuple`` makes.

Each record is defined twice, once on each base, and the two are compared: fields,
defaults, methods, docstrings, equality, pickling and the mistakes both refuse.
"""

from __future__ import annotations

import ast
import pickle
import typing
from pathlib import Path

import pytest

from pi_memory.named_tuple import NamedTuple

PACKAGE = Path(__file__).resolve().parent.parent / "pi_memory"


class Ours(NamedTuple):
    """A record with a default, a method, a property and a class method."""

    name: str
    tags: tuple[str, ...]
    count: int = 0
    last: str | None = None

    def shown(self) -> str:
        return f"{self.name}:{self.count}"

    @property
    def tagged(self) -> bool:
        return bool(self.tags)

    @classmethod
    def empty(cls) -> Ours:
        return cls("", ())


class Theirs(typing.NamedTuple):
    """A record with a default, a method, a property and a class method."""

    name: str
    tags: tuple[str, ...]
    count: int = 0
    last: str | None = None

    def shown(self) -> str:
        return f"{self.name}:{self.count}"

    @property
    def tagged(self) -> bool:
        return bool(self.tags)

    @classmethod
    def empty(cls) -> Theirs:
        return cls("", ())


class Bare(NamedTuple):
    a: int
    b: int


def test_fields_defaults_and_class_body_are_the_same() -> None:
    assert Ours._fields == Theirs._fields == ("name", "tags", "count", "last")
    assert Ours._field_defaults == Theirs._field_defaults == {"count": 0, "last": None}
    assert Ours.__doc__ == Theirs.__doc__
    assert Ours.__module__ == Theirs.__module__ == __name__
    assert Ours.__qualname__ == "Ours"
    assert list(Ours.__annotations__) == list(Theirs.__annotations__)
    assert Bare.__doc__ == "Bare(a, b)"


def test_instances_behave_the_same() -> None:
    ours, theirs = Ours("x", ("a",), 2), Theirs("x", ("a",), 2)
    assert tuple(ours) == tuple(theirs) == ("x", ("a",), 2, None)
    assert ours == theirs  # tuples underneath
    assert hash(ours) == hash(theirs)
    assert repr(ours) == repr(theirs).replace("Theirs", "Ours")
    assert ours.shown() == theirs.shown() == "x:2"
    assert ours.tagged and theirs.tagged
    assert Ours.empty() == Theirs.empty() == ("", (), 0, None)
    assert ours._replace(count=3) == ("x", ("a",), 3, None)
    assert ours._asdict() == theirs._asdict()
    assert Ours._make(["y", (), 1, "z"]).last == "z"
    assert isinstance(ours, tuple)
    assert type(Ours._make(["y", (), 1, "z"])) is Ours


def test_a_record_pickles_by_name() -> None:
    ours = Ours("x", ("a",), 2, "z")
    back = pickle.loads(pickle.dumps(ours))  # noqa: S301 - our own bytes
    assert back == ours
    assert type(back) is Ours


def test_a_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default"):

        class Wrong(NamedTuple):
            a: int = 0
            b: int


def test_a_record_may_not_replace_what_namedtuple_defines() -> None:
    with pytest.raises(AttributeError, match="_replace"):

        class Wrong(NamedTuple):
            a: int

            def _replace(self) -> None:  # type: ignore[override]
                pass


def test_a_record_inherits_from_namedtuple_alone() -> None:
    with pytest.raises(TypeError, match="alone"):

        class Wrong(NamedTuple, int):  # type: ignore[misc]
            a: int


def test_the_package_makes_its_records_on_this_base() -> None:
    """``typing.NamedTuple`` compiles every field's annotation at import; a module that
    used it would slip that cost back into each command that imports it."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "named_tuple.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "typing":
                if any(alias.name == "NamedTuple" for alias in node.names):
                    found.append(str(path.relative_to(PACKAGE)))
            elif isinstance(node, ast.Attribute) and node.attr == "NamedTuple":
                found.append(str(path.relative_to(PACKAGE)))
    assert found == []


class Other(NamedTuple):
    """Two fields, as ``Bare`` has, under other names."""

    x: int
    y: int = 7


class TheirOther(typing.NamedTuple):
    x: int
    y: int = 7


class One(NamedTuple):
    only: str


class TheirOne(typing.NamedTuple):
    only: str


def test_records_with_as_many_fields_bind_their_own_names() -> None:
    """Records of one size share ``__new__``'s code; each binds its own field names."""
    assert Bare(a=1, b=2) == (1, 2)
    assert Other(x=1) == (1, 7)
    assert Other(y=3, x=4) == (4, 3)
    with pytest.raises(TypeError, match="'a'"):
        Other(a=1, b=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'b'"):
        Bare(1)  # type: ignore[call-arg]
    assert One("z") == ("z",) and One(only="z").only == "z"
    assert One.__doc__ == TheirOne.__doc__.replace("TheirOne", "One") == "One(only,)"


def test_constructing_and_failing_read_as_namedtuple_reads() -> None:
    theirs = TheirOther
    for args, kwargs in [((), {}), ((1, 2, 3), {}), ((1,), {"x": 2}), ((), {"z": 1})]:
        with pytest.raises(TypeError) as ours_error:
            Other(*args, **kwargs)
        with pytest.raises(TypeError) as their_error:
            theirs(*args, **kwargs)
        assert str(ours_error.value).split("()", 1)[1] == str(their_error.value).split("()", 1)[1]
    assert [Other(1), Other(1, 2)] == [theirs(1), theirs(1, 2)]


@pytest.mark.parametrize("size", [0, 1, 2, 9, 17, 32, 33, 40])
def test_a_record_of_any_size_is_built_as_namedtuple_builds_it(size: int) -> None:
    """Up to 32 fields ``__new__``'s code comes compiled with the package; past that it is
    compiled when first needed: either way the record is namedtuple's."""
    import collections

    fields = [f"f{n}" for n in range(size)]
    ns: dict[str, object] = {"__annotations__": dict.fromkeys(fields, "int")}
    ns["__module__"] = __name__
    ours = type(NamedTuple)("Sized", (NamedTuple,), ns)
    theirs = collections.namedtuple("Sized", fields)  # the reference
    values = list(range(100, 100 + size))
    assert ours(*values) == theirs(*values) == tuple(values)
    assert ours(**dict(zip(fields, values))) == tuple(values)
    assert ours.__new__.__code__.co_varnames[: size + 1] == ("_cls", *fields)
    if size:
        with pytest.raises(TypeError, match=f"'{fields[-1]}'"):
            ours(*values[:-1])
