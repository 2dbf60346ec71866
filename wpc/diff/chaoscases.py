"""Two ChaosReports in, the chaos half of a qualification's diff: pure data, no I/O.

A qualification that runs the chaos suite on both builds compares its cases
as it compares the suite's items, so one model serves both: each case
(experiment and layout, the ChaosReport's identity of an entry) becomes an
`Item` named by the experiment, a case whose outcome differs an `ItemChange`
(regression: passed -> failed or error; fix: the reverse; otherwise changed,
e.g. a pass whose injection could not be verified), and the same rerun
classification (`reruns`) and explanations (`explaining`, by `experiment`)
apply to it.

A case that is not applicable on either side (the provider or profile cannot
inject its fault; `skipped` in older reports) proves nothing about either
build: it is listed with its reason and never counted as a change.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from chaos.errors import ReportError
from chaos.reporting import junit_xml as chaos_junit
from chaos.reporting.chaos_report import validate_report
from conformance.errors import DataError
from conformance.report.scores import schemafiles
from wpc.diff.comparing import ChaosDiff
from wpc.diff.comparing import ChaosSide
from wpc.diff.comparing import Item
from wpc.diff.comparing import ItemChange
from wpc.diff.comparing import NotApplicable
from wpc.diff.comparing import change_kind

KIND = "ChaosReport"
NOT_APPLICABLE = chaos_junit.NOT_RUN
"""Outcomes that say the case could not run here (those the chaos JUnit counts as
not run): listed, never a change."""


def read(path: Path) -> dict[str, Any]:
    """The ChaosReport at `path`, validated; DataError naming the file and key if not."""
    # The reports' reader: a file too large, not regular or not UTF-8 is refused too.
    text = schemafiles.read_text(path, KIND)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(document, dict) or document.get("kind") != KIND:
        found = document.get("kind") if isinstance(document, dict) else document
        raise DataError(f"{path}: key kind: expected {KIND!r}, got {found!r}")
    return checked(path, document)


def checked(path: Path, document: dict[str, Any]) -> dict[str, Any]:
    """A ChaosReport read from `path`, schema-checked; DataError naming the file if not."""
    try:
        validate_report(document)
    except ReportError as exc:
        raise DataError(f"{path}: {exc}") from exc
    return document


def case(entry: Mapping[str, Any]) -> Item:
    """One ChaosReport entry as an item named by its experiment, in its layout."""
    name = str(entry["name"])
    return Item(
        test_id=name,
        nodeid=name,
        layout=str(entry["layout"]),
        short_name=name,
        clauses=(),
        outcome=str(entry["outcome"]),
        first_outcome=str(entry["outcome"]),
        attempts=1,
        duration=float(entry["durationSeconds"]),
    )


def cases_of(report: Mapping[str, Any]) -> dict[tuple[str, str], Item]:
    """Every case of a ChaosReport, keyed by (experiment, layout)."""
    found = {}
    for entry in report["experiments"]:
        item = case(entry)
        found[item.key] = item
    return found


def outcomes(report: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """Each case's outcome: what a rerun record reads."""
    return {key: item.outcome for key, item in cases_of(report).items()}


def _reasons(report: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    return {
        (str(e["name"]), str(e["layout"])): str(e.get("reason") or "")
        for e in report["experiments"]
    }


def _side(report: Mapping[str, Any], path: str) -> ChaosSide:
    return ChaosSide(
        path=path,
        implementation=str(report["implementation"]["name"]),
        date=str(report["date"]),
        summary=dict(report["summary"]),
    )


def compare(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    old_path: str = "old",
    new_path: str = "new",
) -> ChaosDiff:
    """The chaos diff from `old` to `new` (both already validated ChaosReports)."""
    before, after = cases_of(old), cases_of(new)
    reasons = {k: v for r in (old, new) for k, v in _reasons(r).items() if v}
    diff = ChaosDiff(old=_side(old, old_path), new=_side(new, new_path))
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        seen = [i.outcome for i in (a, b) if i is not None]
        if any(o in NOT_APPLICABLE for o in seen):
            diff.not_applicable.append(
                NotApplicable(
                    name=key[0],
                    layout=key[1],
                    old=a.outcome if a is not None else None,
                    new=b.outcome if b is not None else None,
                    reason=reasons.get(key) or "(no reason recorded)",
                )
            )
        elif a is None and b is not None:
            diff.added.append(b)
        elif b is None and a is not None:
            diff.removed.append(a)
        elif a is not None and b is not None and a.outcome != b.outcome:
            diff.cases.append(ItemChange(change_kind(a.outcome, b.outcome), a, b))
    return diff
