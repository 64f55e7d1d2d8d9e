"""``NamedTuple`` for the package's records, made without checking their annotations.

``typing.NamedTuple`` checks every field's annotation when a record class is
made; with ``from __future__ import annotations`` (every module here) each one
is a string that it compiles into a ``ForwardRef``. That is about 0.3 ms a
record, and a command imports dozens of records before it does anything. The
package never reads a record's annotations at run time, so here the class is
made as ``typing`` makes it (the class ``collections.namedtuple`` makes from the
annotations' names and the defaults, with the class body's methods and
docstring) without that check. Type checkers see ``typing.NamedTuple`` itself.

``collections.namedtuple`` compiles a ``__new__`` from source for every class,
about half of what a record costs to make. Its code differs between two records
only in the names of its arguments, so here it is written once for each number
of fields (compiled with this module, up to 32 fields) and each record gets a
copy that names them: the same bytecode, so a record is built as fast as
``namedtuple``'s (``Entry`` is built 100,000 times on some paths).
"""

from __future__ import annotations

__all__ = ["NamedTuple"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    import sys
    from types import FunctionType

    try:
        from _collections import _tuplegetter
    except ImportError:  # an interpreter without CPython's accelerator
        from operator import itemgetter

        def _tuplegetter(index, doc):
            return property(itemgetter(index), doc=doc)

    #: What a record's class defines and a class body may not replace.
    _PROHIBITED = frozenset(
        (
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        )
    )
    #: What the class body holds that is not copied onto the record.
    _SPECIAL = frozenset(("__module__", "__name__", "__annotations__"))

    _tuple_new = tuple.__new__
    #: The globals of every ``__new__``: the one name its code reads.
    _NEW_GLOBALS = {"_tuple_new": _tuple_new, "__builtins__": {}}
    #: ``__new__``'s code for each number of fields, its arguments named ``_0``, ``_1``, ...
    _NEW_CODE = {}
    #: That code for 0 to 32 fields, compiled with this module into its bytecode: compiling
    #: it at run time (below, for more fields) costs about 0.2 ms a size, and a command's
    #: records have a dozen sizes or more.
    # fmt: off
    _NEW_BY_SIZE = (
        lambda _cls: _tuple_new(_cls, ()),
        lambda _cls, _0: _tuple_new(_cls, (_0,)),
        lambda _cls, _0, _1: _tuple_new(_cls, (_0, _1)),
        lambda _cls, _0, _1, _2: _tuple_new(_cls, (_0, _1, _2)),
        lambda _cls, _0, _1, _2, _3: _tuple_new(_cls, (_0, _1, _2, _3)),
        lambda _cls, _0, _1, _2, _3, _4: _tuple_new(_cls, (_0, _1, _2, _3, _4)),
        lambda _cls, _0, _1, _2, _3, _4, _5: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5)),
        lambda _cls, _0, _1, _2, _3, _4, _5, _6: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6)),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5,
            _6, _7))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8: _tuple_new(_cls, (_0, _1, _2, _3, _4,
            _5, _6, _7, _8))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9: _tuple_new(_cls, (_0, _1, _2, _3,
            _4, _5, _6, _7, _8, _9))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10: _tuple_new(_cls, (_0, _1, _2,
            _3, _4, _5, _6, _7, _8, _9, _10))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11: _tuple_new(_cls, (_0,
            _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12: _tuple_new(_cls,
            (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13:
            _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14:
            _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15:
            _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14,
            _15))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16:
            _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15,
            _16))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14,
            _15, _16, _17))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13,
            _14, _15, _16, _17, _18))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12,
            _13, _14, _15, _16, _17, _18, _19))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11,
            _12, _13, _14, _15, _16, _17, _18, _19, _20))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10,
            _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9,
            _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8,
            _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6,
            _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23,
            _24))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5,
            _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23,
            _24, _25))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25, _26: _tuple_new(_cls, (_0, _1, _2, _3, _4,
            _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22,
            _23, _24, _25, _26))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27: _tuple_new(_cls, (_0, _1, _2, _3,
            _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22,
            _23, _24, _25, _26, _27))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28: _tuple_new(_cls, (_0, _1,
            _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20,
            _21, _22, _23, _24, _25, _26, _27, _28))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29: _tuple_new(_cls, (_0,
            _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19,
            _20, _21, _22, _23, _24, _25, _26, _27, _28, _29))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30: _tuple_new(_cls,
            (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18,
            _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30))),
        (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
            _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31:
            _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15,
            _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31))),
    )
    # fmt: on

    def _new(typename, fields, defaults):
        """``namedtuple``'s ``__new__`` for ``fields``, without compiling it again."""
        code = _NEW_CODE.get(len(fields))
        if code is None and len(fields) < len(_NEW_BY_SIZE):
            code = _NEW_CODE[len(fields)] = _NEW_BY_SIZE[len(fields)].__code__
        if code is None:
            args = "".join(f"_{n}, " for n in range(len(fields)))
            source = f"lambda _cls, {args}: _tuple_new(_cls, ({args}))"
            code = eval(source, _NEW_GLOBALS).__code__  # noqa: S307 - our own source, above
            _NEW_CODE[len(fields)] = code
        new = FunctionType(
            code.replace(co_varnames=("_cls", *fields)), _NEW_GLOBALS, "__new__", defaults or None
        )
        new.__qualname__ = f"{typename}.__new__"
        new.__doc__ = f"Create new instance of {typename}({_arg_list(fields)})"
        return new

    def _arg_list(fields):
        return ", ".join(fields) + ("," if len(fields) == 1 else "")

    def _namespace(typename, fields, defaults):
        """The class namespace ``collections.namedtuple`` makes, with the same methods."""
        num_fields = len(fields)
        arg_list = _arg_list(fields)
        repr_fmt = "(" + ", ".join(f"{name}=%r" for name in fields) + ")"
        _len, _map, _dict, _zip, _tuple = len, map, dict, zip, tuple

        @classmethod
        def _make(cls, iterable):
            result = _tuple_new(cls, iterable)
            if _len(result) != num_fields:
                raise TypeError(f"Expected {num_fields} arguments, got {len(result)}")
            return result

        _make.__func__.__doc__ = f"Make a new {typename} object from a sequence or iterable"

        def _replace(self, /, **kwds):
            result = self._make(_map(kwds.pop, fields, self))
            if kwds:
                raise TypeError(f"Got unexpected field names: {list(kwds)!r}")
            return result

        _replace.__doc__ = (
            f"Return a new {typename} object replacing specified fields with new values"
        )

        def __repr__(self):
            """Return a nicely formatted representation string"""
            return self.__class__.__name__ + repr_fmt % self

        def _asdict(self):
            """Return a new dict which maps field names to their values."""
            return _dict(_zip(self._fields, self))

        def __getnewargs__(self):
            """Return self as a plain tuple.  Used by copy and pickle."""
            return _tuple(self)

        for method in (_make.__func__, _replace, __repr__, _asdict, __getnewargs__):
            method.__qualname__ = f"{typename}.{method.__name__}"
        namespace = {
            "__doc__": f"{typename}({arg_list})",
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": dict(zip(fields[num_fields - len(defaults) :], defaults)),
            "__new__": _new(typename, fields, defaults),
            "_make": _make,
            "__replace__": _replace,
            "_replace": _replace,
            "__repr__": __repr__,
            "_asdict": _asdict,
            "__getnewargs__": __getnewargs__,
            "__match_args__": fields,
        }
        for index, name in enumerate(fields):
            namespace[name] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
        return namespace

    class _RecordMeta(type):
        def __new__(cls, typename, bases, ns):
            if not bases:  # NamedTuple itself
                return super().__new__(cls, typename, bases, ns)
            if bases != (NamedTuple,):
                raise TypeError("a record inherits from NamedTuple alone")
            if "__annotate__" in ns and "__annotations__" not in ns:
                raise TypeError(f"{typename}: a record's module needs postponed annotations")
            annotations = ns.get("__annotations__", {})
            defaults = []
            for name in annotations:
                if name.startswith("_"):
                    raise ValueError(f"Field names cannot start with an underscore: {name!r}")
                if name in ns:
                    defaults.append(ns[name])
                elif defaults:
                    raise TypeError(f"{typename}: field {name} without a default follows one with")
            fields = tuple(map(sys.intern, annotations))
            namespace = _namespace(typename, fields, tuple(defaults))
            namespace["__module__"] = ns["__module__"]
            namespace["__annotations__"] = dict(annotations)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: a record may not define {key}")
                if key not in _SPECIAL and key not in fields:
                    namespace[key] = value
            return type(typename, (tuple,), namespace)

    class NamedTuple(metaclass=_RecordMeta):
        """Base of a record: ``class Entry(NamedTuple)`` with annotated fields."""
