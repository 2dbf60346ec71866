"""The coverage ledger: which spec clauses the suite's tests check, per layout.

Built from the markers of the collected tests against the spec, in both
directions: a clause no test names is *uncovered* (a MUST clause without a
test is a gap the report shows first), and a clause checked in fewer layouts
than it applies to is *partially covered*. Unknown clause IDs in markers never
get this far: they are collection errors (`conformance.plugin.state.markers`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from typing import Protocol

from conformance import contract
from conformance.spec import Spec


class Declared(Protocol):
    """What the ledger reads of a test's declaration (`plugin.state.markers.Declaration`)."""

    @property
    def short_name(self) -> str:
        """The test's ShortName."""
        ...

    @property
    def clauses(self) -> tuple[str, ...]:
        """The clause IDs it checks."""
        ...

    @property
    def layouts(self) -> tuple[str, ...]:
        """The layouts it runs in."""
        ...


@dataclass(frozen=True)
class Gap:
    """A clause some layouts of which no test checks."""

    clause: str
    level: str
    missing_layouts: tuple[str, ...]
    summary: str

    def to_json(self) -> dict[str, Any]:
        """Report form."""
        return {
            "id": self.clause,
            "level": self.level,
            "missingLayouts": list(self.missing_layouts),
            "summary": self.summary,
        }


@dataclass(frozen=True)
class Ledger:
    """Covered clauses (with the tests naming them) and the gaps."""

    covered: dict[str, tuple[str, ...]]
    """Clause ID -> ShortNames of the tests that name it."""
    uncovered: tuple[Gap, ...]
    """Clauses no test names."""
    partial: tuple[Gap, ...]
    """Clauses named by tests, but not in every layout they apply to."""

    @property
    def uncovered_must(self) -> tuple[Gap, ...]:
        """The MUST clauses without any test: the gaps that matter most."""
        return tuple(g for g in self.uncovered if g.level == "MUST")

    def to_json(self) -> dict[str, Any]:
        """Report form."""
        return {
            "covered": [
                {"id": clause, "tests": list(tests)}
                for clause, tests in sorted(self.covered.items())
            ],
            "uncovered": [g.to_json() for g in self.uncovered],
            "partiallyCovered": [g.to_json() for g in self.partial],
            "uncoveredMust": [g.clause for g in self.uncovered_must],
        }


def _text(value: object) -> str:
    return str(getattr(value, "value", value))


def build(spec: Spec, declarations: Iterable[Declared]) -> Ledger:
    """Compare the spec's clauses with the tests' declarations."""
    tests: dict[str, set[str]] = {}
    checked_layouts: dict[str, set[str]] = {}
    for decl in declarations:
        for clause in decl.clauses:
            tests.setdefault(clause, set()).add(decl.short_name)
            checked_layouts.setdefault(clause, set()).update(decl.layouts)
    uncovered: list[Gap] = []
    partial: list[Gap] = []
    for req in spec.requirements:
        if getattr(req, "status", "active") == "retired":
            continue
        applies = [layout for layout in contract.LAYOUTS if layout in req.layouts]
        missing = tuple(
            layout
            for layout in applies
            if layout not in checked_layouts.get(req.id, set())
        )
        if not missing:
            continue
        gap = Gap(
            clause=req.id,
            level=_text(req.level),
            missing_layouts=missing,
            summary=str(req.summary),
        )
        (partial if req.id in tests else uncovered).append(gap)
    return Ledger(
        covered={clause: tuple(sorted(names)) for clause, names in tests.items()},
        uncovered=tuple(uncovered),
        partial=tuple(partial),
    )
