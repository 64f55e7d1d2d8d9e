"""Unseen cases of every known behaviour run: variants of each vector, other values and
other orders, go through the harness, and none may come back unmapped.

A variant keeps its case's ``expected``, so it may well fail on the behaviour (that is
what an unseen case is for); what it may not do is stop the harness: no missing
adapter, no input or expectation it does not know, no key or type it tripped on.
The values a variant takes come from other cases of the same behaviour (so a
platform is a platform, an error code an error code) or, for free text, are
changed in place; the orders are the case's lists reversed.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import Ctx, Unmapped, all_cases, family, kind_of, run_case

#: Keys whose value is free text: a variant changes it in place.
FREE_TEXT = frozenset(
    {"name", "body", "content", "text", "description", "query", "raw", "title", "label"}
)
#: Lists whose order a case does not fix: a variant reverses them.
ORDERED = frozenset({"ops", "adds", "entries", "remotes", "used", "entries_on_disk_sorted"})
#: Outcomes that are the harness failing, not the behaviour.
HARNESS_FAULTS = (Unmapped, KeyError, TypeError, AttributeError, IndexError, NameError)


def _shape(given: dict[str, Any]) -> tuple[str, ...]:
    """A case's behaviour and the keys it gives: cases of one shape can trade values."""
    return (family(kind_of(given)), *sorted(given))


def _donors() -> dict[tuple[tuple[str, ...], str], list[Any]]:
    """The values each input key takes in the cases of each shape."""
    found: dict[tuple[tuple[str, ...], str], list[Any]] = defaultdict(list)
    for case in all_cases():
        shape = _shape(case["input"])
        for key, value in case["input"].items():
            if value not in found[(shape, key)]:
                found[(shape, key)].append(value)
    return found


DONORS = _donors()


def _changed_text(value: Any) -> Any:
    if isinstance(value, str) and value and not value.startswith("<"):
        return value + " 2"
    return value


def _with_text_changed(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _with_text_changed(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_text_changed(v, key) for v in value]
    return _changed_text(value) if key in FREE_TEXT else value


#: Runtime values a case names in angle brackets, each with another of its kind.
PLACEHOLDERS = {"<live>": "<dead pid>", "<dead pid>": "<live>", "<live pid>": "<dead pid>"}


def _placeholders_swapped(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _placeholders_swapped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_placeholders_swapped(v) for v in value]
    return PLACEHOLDERS.get(value, value) if isinstance(value, str) else value


def _reordered(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _reordered(v, k) for k, v in value.items()}
    if isinstance(value, list):
        items = [_reordered(v) for v in value]
        return items[::-1] if key in ORDERED else items
    return value


def variants(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(what changed, input)`` for each variant of ``case``."""
    given = case["input"]
    if "fn" not in given:
        return []  # a described behaviour: no inputs to vary
    shape = _shape(given)
    out: list[tuple[str, dict[str, Any]]] = []
    for key in sorted(given):
        if key == "fn":
            continue
        other = next((v for v in DONORS[(shape, key)] if v != given[key]), None)
        if other is not None:
            out.append((f"{key} from another case", {**given, key: copy.deepcopy(other)}))
    text = _with_text_changed(given)
    if text != given:
        out.append(("free text changed", text))
    swapped = _placeholders_swapped(given)
    if swapped != given:
        out.append(("a live holder for a dead one, or back", swapped))
    order = _reordered(given)
    if order != given:
        out.append(("lists reversed", order))
    return out


CASES = [case for case in all_cases() if variants(case)]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['file']}:{c['id']}" for c in CASES])
def test_every_variant_of_a_known_case_runs(
    case: dict[str, Any],
    tmp_path: Path,
    hermetic_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    faults: list[str] = []
    for n, (what, given) in enumerate(variants(case)):
        scratch = tmp_path / f"v{n}"
        scratch.mkdir()
        variant = {**case, "input": given, "expected": _expected(case["expected"])}
        try:
            run_case(variant, Ctx(scratch, hermetic_home, capsys))
        except HARNESS_FAULTS as fault:
            faults.append(f"{what}: {type(fault).__name__}: {fault}")
        except (Exception, pytest.fail.Exception):  # noqa: S112
            continue  # a difference of behaviour: what an unseen case may well show
    assert faults == []


class _Expected(dict):  # type: ignore[type-arg]
    """The case's ``expected``, kept by its variant: a key it lacks for the variant's
    behaviour is a difference of behaviour, not a fault of the harness."""

    def __getitem__(self, key: Any) -> Any:
        if not dict.__contains__(self, key):
            raise AssertionError(f"the variant's expected has no {key!r}")
        return dict.__getitem__(self, key)


def _expected(value: Any) -> Any:
    if isinstance(value, dict):
        return _Expected({k: _expected(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_expected(v) for v in value]
    return value


def test_variants_are_made_for_every_behaviour_with_inputs() -> None:
    with_inputs = {
        family(kind_of(c["input"]))
        for c in all_cases()
        if "fn" in c["input"] and set(c["input"]) - {"fn", "note"}
    }
    varied = {family(kind_of(c["input"])) for c in CASES}
    assert sorted(with_inputs - varied) == []
