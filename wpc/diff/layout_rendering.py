"""A `LayoutDiff` as a YAML document (for tools) and as a table (for people).

Both say the same things in the same order: the two implementations, the
observations whose layouts differ (in both with the same values or not, in one
only), then the scenarios whose outcome splits between layouts. A row found in
one report only says whether the other ran the scenario in both layouts,
because only then does its silence mean "no difference".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from wpc.diff.layouts import LAYOUTS
from wpc.diff.layouts import Difference
from wpc.diff.layouts import LayoutDiff
from wpc.diff.layouts import ObservationRow
from wpc.diff.layouts import OutcomeRow
from wpc.diff.layouts import Side
from wpc.diff.rendering import table_lines

API_VERSION = "wpc.dev/v1alpha1"
KIND = "LayoutDiff"


def _side(side: Side) -> dict[str, Any]:
    return {
        "path": side.path,
        "implementation": side.implementation,
        "version": side.version,
        "date": side.date,
        "compared": side.compared,
        "declared": sum(d.divergence is not None for d in side.differences.values()),
        "undeclared": sum(d.divergence is None for d in side.differences.values()),
    }


def _difference(found: Difference | None, ran_both: bool) -> dict[str, Any]:
    if found is None:
        return {"differs": False, "ranBothLayouts": ran_both}
    return {
        "differs": True,
        "values": {layout: found.values.get(layout) for layout in LAYOUTS},
        "divergence": found.divergence,
    }


def _observation(row: ObservationRow) -> dict[str, Any]:
    return {
        "scenario": row.scenario,
        "shortName": row.short_name,
        "key": row.key,
        "differsIn": row.differs_in,
        "sameWay": row.same_way,
        "a": _difference(row.a, row.a_ran_both),
        "b": _difference(row.b, row.b_ran_both),
    }


def _outcome(row: OutcomeRow) -> dict[str, Any]:
    return {
        "scenario": row.scenario,
        "shortName": row.short_name,
        "splitIn": row.split_in,
        "sameSplit": row.same_split,
        "a": {layout: row.a.get(layout) for layout in LAYOUTS},
        "b": {layout: row.b.get(layout) for layout in LAYOUTS},
    }


def summary(diff: LayoutDiff) -> dict[str, int]:
    """How many rows of each sort; the table's and the document's headline."""
    both = diff.observations_in("both")
    split_both = diff.outcomes_in("both")
    return {
        "observationsDifferingInBoth": len(both),
        "sameWay": sum(r.same_way is True for r in both),
        "notSameWay": sum(r.same_way is False for r in both),
        "observationsDifferingInAOnly": len(diff.observations_in("a")),
        "observationsDifferingInBOnly": len(diff.observations_in("b")),
        "outcomeSplitsInBoth": len(split_both),
        "sameSplit": sum(r.same_split is True for r in split_both),
        "outcomeSplitsInAOnly": len(diff.outcomes_in("a")),
        "outcomeSplitsInBOnly": len(diff.outcomes_in("b")),
    }


def document(diff: LayoutDiff) -> dict[str, Any]:
    """The layout diff as a plain mapping, ready for `yaml.safe_dump`."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "layouts": list(LAYOUTS),
        "a": _side(diff.a),
        "b": _side(diff.b),
        "summary": summary(diff),
        "observations": [_observation(r) for r in diff.observations],
        "outcomes": [_outcome(r) for r in diff.outcomes],
    }


def yaml_text(diff: LayoutDiff) -> str:
    """The document as YAML text."""
    return yaml.safe_dump(document(diff), sort_keys=False, allow_unicode=True)


def _shown(value: Any) -> str:
    """A value as the table shows it: an empty string must not vanish."""
    return "''" if value == "" else str(value)


def _by_layout(values: Mapping[str, Any]) -> str:
    return " / ".join(
        _shown(values[layout]) if layout in values else "-" for layout in LAYOUTS
    )


def _values(found: Difference | None, ran_both: bool) -> str:
    if found is None:
        return "no difference" if ran_both else "not run in both layouts"
    name = found.divergence or "UNDECLARED"
    return f"{_by_layout(found.values)} ({name})"


def _verdict(where: str, same: bool | None, a: str, b: str, what: str) -> str:
    if where == "both":
        return f"both, {what}" if same else "both, differently"
    return f"{a if where == 'a' else b} only"


def table(diff: LayoutDiff) -> str:
    """The readable form printed on stdout."""
    a, b = _labels(diff)
    counts = summary(diff)
    order = " / ".join(LAYOUTS)
    lines = [
        f"A: {_describe(diff.a)}",
        f"B: {_describe(diff.b)}",
        "",
        f"observations differing between layouts ({order}): "
        f"{counts['observationsDifferingInBoth']} in both "
        f"({counts['sameWay']} the same way, {counts['notSameWay']} not), "
        f"{counts['observationsDifferingInAOnly']} in {a} only, "
        f"{counts['observationsDifferingInBOnly']} in {b} only",
    ]
    if diff.observations:
        lines += table_lines(
            ("scenario", "key", a, b, "where"),
            [
                (
                    r.short_name,
                    r.key,
                    _values(r.a, r.a_ran_both),
                    _values(r.b, r.b_ran_both),
                    _verdict(r.differs_in, r.same_way, a, b, "same way"),
                )
                for r in diff.observations
            ],
        )
    lines += [
        "",
        f"outcomes split between layouts ({order}): "
        f"{counts['outcomeSplitsInBoth']} in both ({counts['sameSplit']} the same split), "
        f"{counts['outcomeSplitsInAOnly']} in {a} only, "
        f"{counts['outcomeSplitsInBOnly']} in {b} only",
    ]
    if diff.outcomes:
        lines += table_lines(
            ("scenario", a, b, "where", "test id"),
            [
                (
                    r.short_name,
                    _by_layout(r.a),
                    _by_layout(r.b),
                    _verdict(r.split_in, r.same_split, a, b, "same split"),
                    r.scenario,
                )
                for r in diff.outcomes
            ],
        )
    return "\n".join(lines) + "\n"


def _labels(diff: LayoutDiff) -> tuple[str, str]:
    """Column names: the implementations' names, or A and B when they are the same."""
    if diff.a.implementation == diff.b.implementation:
        return "A", "B"
    return diff.a.implementation, diff.b.implementation


def _describe(side: Side) -> str:
    return (
        f"{side.implementation} {side.version} ({side.date}, {side.path}); "
        f"{side.compared} scenarios compared across layouts"
    )
