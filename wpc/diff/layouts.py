"""Two implementations' layout differences side by side: pure data, no I/O.

Issue 10 asks, per scenario, where upstream's legacy and init-less
observations differ and whether the reference differs in the same way. A
report answers half of it for its own implementation: `layoutDivergences`
lists every observation whose value changed between layouts (declared or
not), and `tests` gives each scenario's outcome per layout. This module lines
two reports up on those two axes.

Why scenarios are matched by the test id with the layout taken out
(`conformance.report.items.records.scenario_of`) and not by short name: several
tests share a short name (FinalizerDeletion, KillShutdown, ...), while the
layout-free test id is what `layoutDivergences` itself records as `scenario`.

Why a difference seen in one report only carries whether the other ran the
scenario in both layouts: a report lists what differed, not what was compared,
so "no difference" can only be claimed where both layouts actually ran.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from conformance import contract
from conformance.errors import DataError
from conformance.report.items import identity
from conformance.report.items.records import scenario_of

LAYOUTS = contract.LAYOUTS
"""The two layouts every scenario runs in, in the order they are shown."""
RAN = frozenset({"passed", "failed", "error"})
"""Outcomes of a test that ran (a skipped test observed nothing)."""


@dataclass(frozen=True)
class Difference:
    """One observation whose value differs between layouts in one report."""

    scenario: str
    short_name: str
    key: str
    values: Mapping[str, Any]
    """The observed value per layout (`<absent>` where a layout recorded none)."""
    divergence: str | None
    """The declared divergence's name; None for an undeclared difference."""


@dataclass(frozen=True)
class Side:
    """What the layout diff needs from one report."""

    path: str
    implementation: str
    version: str
    date: str
    compared: int
    """How many scenarios the report compared across layouts."""
    differences: dict[tuple[str, str], Difference]
    """Keyed by (scenario, observation key)."""
    outcomes: dict[str, dict[str, str]]
    """Scenario -> layout -> outcome."""
    short_names: dict[str, str]
    """Scenario -> short name."""

    def ran_both(self, scenario: str) -> bool:
        """Whether the scenario ran (was not skipped) in both layouts here."""
        seen = self.outcomes.get(scenario, {})
        return all(seen.get(layout) in RAN for layout in LAYOUTS)

    def split(self, scenario: str) -> bool:
        """Whether the scenario's outcome differs between the two layouts here."""
        seen = self.outcomes.get(scenario, {})
        return (
            all(layout in seen for layout in LAYOUTS)
            and len({seen[layout] for layout in LAYOUTS}) > 1
        )


@dataclass(frozen=True)
class ObservationRow:
    """One (scenario, key) whose layouts differ in at least one report."""

    scenario: str
    short_name: str
    key: str
    a: Difference | None
    b: Difference | None
    a_ran_both: bool
    b_ran_both: bool

    @property
    def differs_in(self) -> str:
        """both, a or b."""
        if self.a is not None and self.b is not None:
            return "both"
        return "a" if self.a is not None else "b"

    @property
    def same_way(self) -> bool | None:
        """When both differ, whether each layout saw the same value in both; else None."""
        if self.a is None or self.b is None:
            return None
        return dict(self.a.values) == dict(self.b.values)


@dataclass(frozen=True)
class OutcomeRow:
    """One scenario whose outcome differs between layouts in at least one report."""

    scenario: str
    short_name: str
    a: Mapping[str, str]
    """Layout -> outcome in report A (a layout it did not run is missing)."""
    b: Mapping[str, str]
    a_split: bool
    b_split: bool

    @property
    def split_in(self) -> str:
        """both, a or b."""
        if self.a_split and self.b_split:
            return "both"
        return "a" if self.a_split else "b"

    @property
    def same_split(self) -> bool | None:
        """When both split, whether each layout has the same outcome in both; else None."""
        if not (self.a_split and self.b_split):
            return None
        return all(self.a[layout] == self.b[layout] for layout in LAYOUTS)


@dataclass(frozen=True)
class LayoutDiff:
    """Where layouts differ in report A, in report B, and in both."""

    a: Side
    b: Side
    observations: list[ObservationRow] = field(default_factory=list)
    outcomes: list[OutcomeRow] = field(default_factory=list)

    def observations_in(self, where: str) -> list[ObservationRow]:
        """The observation rows differing in `where` (both, a or b)."""
        return [r for r in self.observations if r.differs_in == where]

    def outcomes_in(self, where: str) -> list[OutcomeRow]:
        """The outcome rows split in `where` (both, a or b)."""
        return [r for r in self.outcomes if r.split_in == where]


def _differences(
    report: dict[str, Any], path: str
) -> dict[tuple[str, str], Difference]:
    found = report["layoutDivergences"]
    flat: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        (f"layoutDivergences.declared[{i}]", entry, entry)
        for i, entry in enumerate(found["declared"])
    ]
    for i, entry in enumerate(found["undeclared"]):
        flat += [
            (f"layoutDivergences.undeclared[{i}].differences[{j}]", entry, x)
            for j, x in enumerate(entry["differences"])
        ]
    differences: dict[tuple[str, str], Difference] = {}
    for where, owner, x in flat:
        difference = Difference(
            scenario=identity.of_scenario(owner),
            short_name=owner["shortName"],
            key=x["key"],
            values=dict(x["values"]),
            divergence=x["divergence"],
        )
        at = (difference.scenario, difference.key)
        if at in differences:
            raise DataError(
                f"{path}: key {where}: observation {difference.key!r} of "
                f"{difference.scenario} is listed twice"
            )
        differences[at] = difference
    return differences


def _outcomes(
    report: dict[str, Any], path: str
) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    outcomes: dict[str, dict[str, str]] = {}
    short_names: dict[str, str] = {}
    for i, test in enumerate(report["tests"]):
        layout = test["layout"]
        if layout not in LAYOUTS:
            continue
        scenario = scenario_of(identity.of_test(test), layout)
        seen = outcomes.setdefault(scenario, {})
        if layout in seen:
            raise DataError(
                f"{path}: key tests[{i}]: a second test of {scenario} in layout {layout}"
            )
        seen[layout] = test["outcome"]
        short_names[scenario] = test["shortName"]
    return outcomes, short_names


def side(report: dict[str, Any], path: str) -> Side:
    """One validated report reduced to its layout differences and outcomes.

    DataError naming the file and key when an observation or a test is listed
    twice (the schema cannot say so, and a duplicate would hide a value).
    """
    outcomes, short_names = _outcomes(report, path)
    return Side(
        path=path,
        implementation=report["implementation"]["name"],
        version=report["implementation"]["version"],
        date=report["date"],
        compared=report["layoutDivergences"]["compared"],
        differences=_differences(report, path),
        outcomes=outcomes,
        short_names=short_names,
    )


def _short_name(scenario: str, a: Side, b: Side) -> str:
    return a.short_names.get(scenario) or b.short_names.get(scenario) or scenario


def compare(a: Side, b: Side) -> LayoutDiff:
    """Line up the layout differences and outcome splits of two reports."""
    diff = LayoutDiff(a=a, b=b)
    for scenario, key in sorted(a.differences.keys() | b.differences.keys()):
        in_a, in_b = (
            a.differences.get((scenario, key)),
            b.differences.get((scenario, key)),
        )
        named = in_a if in_a is not None else in_b
        diff.observations.append(
            ObservationRow(
                scenario=scenario,
                short_name=named.short_name if named is not None else scenario,
                key=key,
                a=in_a,
                b=in_b,
                a_ran_both=a.ran_both(scenario),
                b_ran_both=b.ran_both(scenario),
            )
        )
    for scenario in sorted(a.outcomes.keys() | b.outcomes.keys()):
        a_split, b_split = a.split(scenario), b.split(scenario)
        if not (a_split or b_split):
            continue
        diff.outcomes.append(
            OutcomeRow(
                scenario=scenario,
                short_name=_short_name(scenario, a, b),
                a=dict(a.outcomes.get(scenario, {})),
                b=dict(b.outcomes.get(scenario, {})),
                a_split=a_split,
                b_split=b_split,
            )
        )
    return diff
