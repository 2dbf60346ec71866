"""We test these aspects of the coverage ledger (against the fixture spec):

- a MUST clause without a test is reported as uncovered, and among uncoveredMust;
- a clause tested in fewer layouts than it applies to is partially covered;
- retired clauses are not gaps.
"""

from __future__ import annotations

from conformance import spec
from conformance.plugin.state.markers import Declaration
from conformance.report.runs import ledger
from tests.conformance.conftest import SPEC


def decl(
    short_name: str, clauses: tuple[str, ...], layouts: tuple[str, ...]
) -> Declaration:
    return Declaration(
        short_name=short_name,
        clauses=clauses,
        features=frozenset(),
        layouts=layouts,
        levels=(),
        profiles=(),
    )


def test_a_must_clause_without_a_test_is_reported():
    result = ledger.build(
        spec.load(SPEC), [decl("HelloWorld", ("WPC-POD-001",), ("legacy", "initless"))]
    )
    assert result.covered == {"WPC-POD-001": ("HelloWorld",)}
    assert [g.clause for g in result.uncovered_must] == [
        "WPC-POD-002",
        "WPC-INITLESS-001",
    ]
    gap = result.uncovered_must[0]
    assert (gap.level, gap.missing_layouts) == ("MUST", ("legacy", "initless"))


def test_a_clause_tested_in_one_layout_only_is_partially_covered():
    result = ledger.build(
        spec.load(SPEC), [decl("ExitCode", ("WPC-POD-002",), ("legacy",))]
    )
    partial = {g.clause: g.missing_layouts for g in result.partial}
    assert partial == {"WPC-POD-002": ("initless",)}


def test_retired_clauses_are_not_gaps():
    result = ledger.build(spec.load(SPEC), [])
    assert "WPC-POD-003" not in {g.clause for g in result.uncovered}


def test_ledger_json_is_sorted_and_complete():
    doc = ledger.build(
        spec.load(SPEC),
        [
            decl("B", ("WPC-POD-002",), ("legacy", "initless")),
            decl("A", ("WPC-POD-001",), ("legacy", "initless")),
        ],
    ).to_json()
    assert [c["id"] for c in doc["covered"]] == ["WPC-POD-001", "WPC-POD-002"]
    assert doc["uncoveredMust"] == ["WPC-INITLESS-001"]
