"""The items that needed a rerun: in the report (`attempts.retried`) and the summary.

A test that passes only on its second attempt is a flake, and a verdict that hides
it overstates the implementation (or the suite): pass@1 is what a user's first run
sees. The suite never reruns anything itself; a rerun plugin the user adds may
(`conformance.report.items.records` records every attempt). Whatever reran, each item
with more than one attempt is listed with its ShortName, layout, first and final
outcome and attempt count, in the ConformanceReport and under "Needed a rerun" in
the run's end-of-run summary, which also says so when nothing was rerun.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from conformance.report.items.records import TestRecord

HEADING = "Needed a rerun"


def rerun(records: Iterable[TestRecord]) -> list[TestRecord]:
    """The scenario records with more than one attempt, in arrival order."""
    return [r for r in records if r.kind == "scenario" and r.attempts > 1]


def retried(records: Iterable[TestRecord]) -> list[dict[str, Any]]:
    """The ConformanceReport's `attempts.retried` entries."""
    return [
        {
            "id": r.test_id,
            "nodeid": r.nodeid,
            "shortName": r.short_name,
            "layout": r.layout,
            "attempts": r.attempts,
            "firstOutcome": r.first_outcome.value,
            "finalOutcome": r.outcome.value,
        }
        for r in rerun(records)
    ]


def label(entry: Mapping[str, Any]) -> str:
    """`Flaky [legacy]: failed then passed (2 attempts)` for one `retried` entry.

    Works on a report read back from disk; entries written before ShortName and
    layout were recorded show the node ID instead.
    """
    name = str(entry.get("shortName", entry["nodeid"]))
    where = f" [{entry['layout']}]" if "layout" in entry else ""
    return (
        f"{name}{where}: {entry['firstOutcome']} then {entry['finalOutcome']} "
        f"({entry['attempts']} attempts)"
    )


def _verdict(record: TestRecord) -> str:
    if record.first_outcome is record.outcome:
        return f"{record.outcome.value} on the first and the last"
    return f"flaky: {record.first_outcome.value} first, {record.outcome.value} at last"


def summary(records: Iterable[TestRecord]) -> list[str]:
    """The summary's section: `Needed a rerun: N`, then one line per item."""
    found = rerun(records)
    lines = [f"{HEADING}: {len(found)}"]
    lines += [
        f"  [{r.layout}] {r.short_name}: {r.attempts} attempts, {_verdict(r)} "
        f"({r.test_id})"
        for r in sorted(found, key=lambda r: (r.layout, r.test_id))
    ]
    return lines
