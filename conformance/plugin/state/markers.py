"""The `@pytest.mark.conformance(...)` declaration every suite test carries.

A test is data: its ShortName, the spec clauses it checks and the features it
needs. `declare()` validates a marker against the spec, so an unknown clause or
feature is a collection error, and works out the layouts the test applies to
(the layouts every one of its clauses covers).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import contract
from conformance.errors import DataError
from conformance.report.items import identity
from conformance.spec import Spec

MARKER = "conformance"
MARKER_HELP = (
    "conformance(short_name, clauses, features=()): a WPC conformance test "
    "checking the listed spec clause IDs, gated by the listed features"
)
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
ALLOWED_KWARGS = frozenset({"short_name", "clauses", "features"})


@dataclass(frozen=True)
class Declaration:
    """A validated conformance marker."""

    short_name: str
    clauses: tuple[str, ...]
    features: frozenset[str]
    """Features named in the marker plus the features of its clauses."""
    layouts: tuple[str, ...]
    """Layouts all its clauses apply to, in canonical order."""
    levels: tuple[str, ...]
    """The clauses' levels (MUST, SHOULD, MAY), in clause order."""
    profiles: tuple[str, ...]
    """The spec profiles of its clauses, sorted and unique."""


def short_name_for(path: Path) -> str:
    """`test_executor_retry_backoff.py` -> `ExecutorRetryBackoff`."""
    return identity.short_name_of(path)


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise DataError(f"{what} must be a list of strings, not {value!r}")
    items = tuple(value)
    if not all(isinstance(v, str) for v in items):
        raise DataError(f"{what} must be a list of strings, not {value!r}")
    return items


def _enum_text(value: object) -> str:
    return str(getattr(value, "value", value))


def declare(
    *, args: tuple[Any, ...], kwargs: dict[str, Any], path: Path, spec: Spec
) -> Declaration:
    """Validate one marker's arguments against the spec and the test's file name."""
    if args:
        raise DataError(
            "use keywords: conformance(short_name=..., clauses=[...], features=[...])"
        )
    unknown = sorted(set(kwargs) - ALLOWED_KWARGS)
    if unknown:
        raise DataError(f"unknown marker argument(s): {', '.join(unknown)}")
    short_name = kwargs.get("short_name")
    if not isinstance(short_name, str) or not PASCAL.match(short_name):
        raise DataError(f"short_name must be PascalCase, not {short_name!r}")
    expected = short_name_for(path)
    if short_name != expected:
        raise DataError(
            f"short_name {short_name!r} must match the file name {path.name} ({expected!r})"
        )
    clauses = _strings(kwargs.get("clauses", ()), "clauses")
    if not clauses:
        raise DataError("clauses must name at least one spec clause ID")
    requirements = spec.by_id()
    missing = [c for c in clauses if c not in requirements]
    if missing:
        raise DataError(f"unknown clause ID(s): {', '.join(missing)}")
    known_features = {f.name for f in spec.features}
    features = _strings(kwargs.get("features", ()), "features")
    bad = [f for f in features if f not in known_features]
    if bad:
        raise DataError(
            f"unknown feature(s): {', '.join(bad)} "
            f"(the spec defines: {', '.join(sorted(known_features))})"
        )
    retired = [
        c for c in clauses if getattr(requirements[c], "status", "active") == "retired"
    ]
    if retired:
        raise DataError(
            f"retired clause ID(s) may no longer be cited: {', '.join(retired)}"
        )
    reqs = [requirements[c] for c in clauses]
    applicable = set(contract.LAYOUTS)
    for req in reqs:
        applicable &= set(req.layouts)
    if not applicable:
        raise DataError(f"clauses {', '.join(clauses)} share no layout; split the test")
    return Declaration(
        short_name=short_name,
        clauses=clauses,
        features=frozenset(features) | {r.feature for r in reqs if r.feature},
        layouts=tuple(layout for layout in contract.LAYOUTS if layout in applicable),
        levels=tuple(_enum_text(r.level) for r in reqs),
        profiles=tuple(sorted({str(r.profile) for r in reqs})),
    )
