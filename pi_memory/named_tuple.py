"""``NamedTuple`` for the package's records, made without checking their annotations.

``typing.NamedTuple`` checks every field's annotation when a record class is
made; with ``from __future__ import annotations`` (every module here) each one
is a string that it compiles into a ``ForwardRef``. That is about 0.3 ms a
record, and a command imports dozens of records before it does anything. The
package never reads a record's annotations at run time, so here the class is
made the way ``typing`` makes it (``collections.namedtuple`` from the
annotations' names and the defaults, then the class body's methods and
docstring) without that check. Type checkers see ``typing.NamedTuple`` itself.
"""

from __future__ import annotations

__all__ = ["NamedTuple"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from collections import namedtuple

    #: What ``collections.namedtuple`` defines and a class body may not replace.
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
                if name in ns:
                    defaults.append(ns[name])
                elif defaults:
                    raise TypeError(f"{typename}: field {name} without a default follows one with")
            record = namedtuple(typename, annotations, defaults=defaults, module=ns["__module__"])
            record.__annotations__ = dict(annotations)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: a record may not define {key}")
                if key in _SPECIAL:
                    continue
                if key not in record._fields:
                    setattr(record, key, value)
                set_name = getattr(type(value), "__set_name__", None)
                if set_name is not None:
                    set_name(value, record, key)
            return record

    class NamedTuple(metaclass=_RecordMeta):
        """Base of a record: ``class Entry(NamedTuple)`` with annotated fields."""
