"""We test these aspects of the negative-control table (no cluster):

- the shipped `controls.yaml` is valid against the real fault names, the suite's
  ShortNames and the spec; it has at least 10 rows, a row for every fault the
  reference implementation has, and a reason on every pending row;
- unknown fault names, ShortNames and clause IDs, duplicate faults, a test that is
  both killer and canary, an active row without killers, or without canaries and a
  reason, and a pending row without a reason are errors naming the row and the value;
- schema errors (an unknown layout, a missing key) name the key;
- ShortNames map to the suite's file names, both ways;
- every active row has a canary in the family of one of its clauses (a canary
  whose marker cites some WPC-<FAMILY>-NNN of the row's families; issue 11), read
  from the suite's markers with `ast`, and the check fails a row without one.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

import pytest

from conformance import contract
from conformance import spec as specs
from conformance.implementations import profiles
from conformance.plugin.state import markers
from conformance.report.items import identity
from tests.negative import controls
from tests.negative import runner
from tests.negative.controls import ControlsError
from tests.negative.controls import TestRef

KNOWN = controls.Known(
    faults=frozenset({"never-ready", "leave-finalizer"}),
    short_names=frozenset({"HelloWorld", "HandshakeMarker"}),
    levels={
        "WPC-STATUS-002": "MUST",
        "WPC-HANDSHAKE-004": "MUST",
        "WPC-X-001": "SHOULD",
    },
)
ROW: dict[str, Any] = {
    "fault": "never-ready",
    "clauses": ["WPC-HANDSHAKE-004"],
    "killers": [{"test": "HandshakeMarker", "layout": "initless"}],
    "canaries": [{"test": "HelloWorld", "layout": "legacy"}],
}


def table(*rows: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "wpc.dev/v1alpha1",
        "kind": "NegativeControls",
        "controls": [copy.deepcopy(r) for r in rows or (ROW,)],
    }


def with_changes(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(ROW), **changes}


def test_a_valid_row_parses():
    (row,) = controls.parse(table(), known=KNOWN)
    assert row.fault == "never-ready"
    assert row.killers == (TestRef("HandshakeMarker", "initless"),)
    assert row.layouts == ("initless", "legacy")
    assert (row.status, row.timeout_scale) == ("active", 1.0)


def test_the_shipped_table_is_valid_and_covers_every_fault():
    known = controls.Known.discover()
    rows = controls.load(known=known)
    assert len(rows) >= 10
    assert {r.fault for r in rows} == known.faults
    for row in rows:
        if row.status == controls.PENDING:
            assert row.reason.strip(), row.fault


def test_every_chaos_row_is_judged_by_a_chaos_negative_control():
    """A `chaos` row leaves the suite's score only because tests/chaos judges it.

    A chaos control may also use a fault this suite scores (an active row):
    every fault it names must be a row here.
    """
    from tests.chaos.negative_coverage import CONTROLS

    rows = {r.fault: r.status for r in controls.load()}
    chaos_rows = {fault for fault, status in rows.items() if status == controls.CHAOS}
    assert chaos_rows, "no chaos rows: this test would check nothing"
    assert chaos_rows <= {c.fault for c in CONTROLS}
    assert {c.fault for c in CONTROLS} <= set(rows)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (with_changes(fault="never-readdy"), r"unknown fault 'never-readdy'"),
        (
            with_changes(killers=[{"test": "HelloWord", "layout": "legacy"}]),
            r"unknown test HelloWord \(no test_hello_word.py in the suite\)",
        ),
        (with_changes(clauses=["WPC-STATUS-999"]), r"unknown clause WPC-STATUS-999"),
        (with_changes(killers=[]), r"an active row needs at least one killer"),
        (with_changes(canaries=[]), r"an active row without canaries needs a reason"),
        (
            with_changes(canaries=ROW["killers"]),
            r"HandshakeMarker\[initless\] is both a killer and a canary",
        ),
        (with_changes(status="pending"), r"a pending row needs a reason"),
        (with_changes(status="chaos"), r"a chaos row needs a reason"),
    ],
)
def test_semantic_errors_name_the_row_and_the_value(row, message):
    with pytest.raises(ControlsError, match=rf"controls\[0\] \(\S+\): {message}"):
        controls.parse(table(row), known=KNOWN)


def test_a_fault_may_have_one_row_only():
    with pytest.raises(ControlsError, match=r"controls\[1\] .*already has a row"):
        controls.parse(table(ROW, ROW), known=KNOWN)


def test_a_row_may_go_without_canaries_when_it_says_why():
    row = with_changes(canaries=[], reason="every workflow with a pod hangs")
    (parsed,) = controls.parse(table(row), known=KNOWN)
    assert parsed.canaries == ()


def test_a_pending_row_needs_no_killer():
    row = with_changes(killers=[], status="pending", reason="no test deletes pods yet")
    (parsed,) = controls.parse(table(row), known=KNOWN)
    assert parsed.status == "pending"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            with_changes(canaries=[{"test": "HelloWorld", "layout": "both"}]),
            r"controls.0.canaries.0.layout: 'both' is not one of",
        ),
        ({k: v for k, v in ROW.items() if k != "clauses"}, r"'clauses' is a required"),
        (
            with_changes(timeoutScale=0.5),
            r"timeoutScale: 0.5 is less than the minimum of 1",
        ),
        (with_changes(stauts="pending"), r"'stauts' was unexpected"),
    ],
)
def test_schema_errors_name_the_key(row, message):
    with pytest.raises(ControlsError, match=message):
        controls.parse(table(row), known=KNOWN)


def test_short_names_map_to_suite_files_both_ways():
    assert TestRef("HelloWorld", "legacy").path() == (
        identity.SUITE_DIR / "status" / "test_hello_world.py"
    )
    for path in identity.suite_files():
        assert TestRef(markers.short_name_for(path), "legacy").path() == path


def test_must_clauses_are_the_denominator():
    assert KNOWN.must == {"WPC-STATUS-002", "WPC-HANDSHAKE-004"}


def _cited_clauses() -> dict[str, set[str]]:
    """ShortName -> every clause its test functions' markers cite, from the source."""
    cited: dict[str, set[str]] = {}
    for name, clauses, _features in _functions():
        cited.setdefault(name, set()).update(clauses)
    return cited


def _functions() -> list[tuple[str, frozenset[str], frozenset[str]]]:
    """(ShortName, clauses, features) of every suite test function (marker + clauses)."""
    feature_of = {r.id: r.feature for r in specs.load().requirements if r.feature}
    found = []
    for path in identity.suite_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "conformance"
            ):
                continue
            kwargs = {k.arg: k.value for k in node.keywords if k.arg}
            clauses = frozenset(ast.literal_eval(kwargs.get("clauses", ast.List([]))))
            features = set(ast.literal_eval(kwargs.get("features", ast.List([]))))
            features |= {feature_of[c] for c in clauses if c in feature_of}
            found.append((markers.short_name_for(path), clauses, frozenset(features)))
    return found


def unrunnable(rows: Iterable[controls.Control], claimed: set[str]) -> list[str]:
    """Killers and canaries that would skip against an implementation claiming `claimed`.

    A killer needs one runnable function citing a clause of its row (the one that
    fails); a canary needs every function of its ShortName runnable (a skipped
    function makes the ShortName's outcome `skipped`, an error for a canary).
    """
    layout_features = set(contract.LAYOUT_FEATURES.values())
    functions = _functions()
    problems = []
    for row in rows:
        if row.status != controls.ACTIVE:
            continue
        for ref, role in [(k, "killer") for k in row.killers] + [
            (c, "canary") for c in row.canaries
        ]:
            own = [
                (
                    clauses,
                    (set(features) - layout_features)
                    | {contract.LAYOUT_FEATURES[ref.layout]},
                )
                for name, clauses, features in functions
                if name == ref.short_name
            ]
            if role == "killer":
                own = [(c, f) for c, f in own if c & set(row.clauses)]
                ok = any(f <= claimed for _, f in own)
            else:
                ok = all(f <= claimed for _, f in own)
            if not ok:
                missing = sorted(set().union(*(f for _, f in own)) - claimed)
                problems.append(f"{row.fault}: {role} {ref.label} needs {missing}")
    return problems


def test_every_test_an_active_row_runs_is_one_the_faulty_reference_claims():
    """A killer or canary needing a feature not claimed would skip, and the row error.

    (`ignore-signal-file` once had EmissaryLargeArgs as canary: LARGE_ARGUMENTS is not
    claimed, so the canary skipped on the cluster.)
    """
    core = {
        f.name
        for f in specs.load().features
        if str(getattr(f.support, "value", f.support)) == "Core"
    }
    claimed = core | set(profiles.load(str(runner.PROFILE)).features)
    assert unrunnable(controls.load(), claimed) == []
    # The check can fail: a canary needing a feature nobody claims is found.
    (row,) = [r for r in controls.load() if r.fault == "ignore-signal-file"]
    large = TestRef("EmissaryLargeArgs", "legacy")
    found = unrunnable([dataclasses.replace(row, canaries=(large,))], claimed)
    assert found == [
        "ignore-signal-file: canary EmissaryLargeArgs[legacy] needs ['LARGE_ARGUMENTS']"
    ]


def family(clause: str) -> str:
    """`WPC-STATUS-002` -> `WPC-STATUS`."""
    return clause.rsplit("-", 1)[0]


def rows_without_a_family_canary(
    rows: Iterable[controls.Control], cited: Mapping[str, set[str]]
) -> list[str]:
    """Active rows none of whose canaries cites a clause of the row's families."""
    missing = []
    for row in rows:
        if row.status != controls.ACTIVE or row.no_family_canary:
            continue
        families = {family(c) for c in row.clauses}
        if not any(
            families & {family(c) for c in cited.get(t.short_name, ())}
            for t in row.canaries
        ):
            missing.append(f"{row.fault} (families {', '.join(sorted(families))})")
    return missing


def test_every_active_row_has_a_canary_of_its_clause_family():
    cited = _cited_clauses()
    rows = controls.load()
    assert any(r.status == controls.ACTIVE for r in rows), "no active row to check"
    assert rows_without_a_family_canary(rows, cited) == []


def test_a_row_whose_canaries_are_all_of_other_families_is_found():
    (row,) = controls.parse(table(), known=KNOWN)  # HANDSHAKE-004; HelloWorld
    cited = {"HelloWorld": {"WPC-STATUS-002"}, "HandshakeMarker": {"WPC-HANDSHAKE-001"}}
    assert rows_without_a_family_canary([row], cited) == [
        "never-ready (families WPC-HANDSHAKE)"
    ]
    assert (
        rows_without_a_family_canary([row], {"HelloWorld": {"WPC-HANDSHAKE-9"}}) == []
    )
