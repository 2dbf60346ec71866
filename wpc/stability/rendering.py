"""The StabilityReport (YAML, schema `stability.schema.json`) and its printed table.

The table is short: the runs, then only the items that flipped (each with its
durations and the first line of what failed, per run) and those that failed in
every run. The YAML has every item's outcome in each run, and the whole
message of each failure.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.report.runs import documents
from conformance.report.scores import schemafiles
from plumbing import textfiles
from wpc.stability.comparing import Item
from wpc.stability.comparing import Stability

KIND = "StabilityReport"
SCHEMA = Path(__file__).with_name("stability.schema.json")


@dataclass(frozen=True)
class Ran:
    """One run of the comparison: its report, and its exit status when this command ran it."""

    report: str
    status: int | None = None


@dataclass(frozen=True)
class Stopped:
    """The run a repetition stopped at: interrupted, or ended without a report to compare."""

    run: int
    """1-based."""
    status: int
    reason: str
    interrupted: bool


def _item(item: Item, *, full: bool) -> dict[str, Any]:
    found: dict[str, Any] = {
        "id": item.id,
        "outcomes": list(item.outcomes),
        "durationsSeconds": [round(o.seconds, 3) for o in item.runs],
    }
    if full:
        found["failures"] = [
            {"run": index, "outcome": o.outcome, "message": list(o.message)}
            for index, o in enumerate(item.runs, start=1)
            if o.failed
        ]
    return found


def document(
    stability: Stability | None, runs: Sequence[Ran], stopped: Stopped | None = None
) -> dict[str, Any]:
    """The StabilityReport; `stability` None when no run finished to compare."""
    compared = len(stability.reports) if stability is not None else 0
    items = stability.items if stability is not None else ()
    flips = stability.flips if stability is not None else ()
    failing = stability.failing if stability is not None else ()
    found = {
        "apiVersion": documents.API_VERSION,
        "kind": KIND,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "subject": stability.kind if stability is not None else None,
        "implementation": stability.implementation if stability is not None else None,
        "runs": [
            {"report": run.report, "exitCode": run.status, "compared": i < compared}
            for i, run in enumerate(runs)
        ],
        "interrupted": {"run": stopped.run, "reason": stopped.reason}
        if stopped is not None and stopped.interrupted
        else None,
        "stopped": {
            "run": stopped.run,
            "exitCode": stopped.status,
            "reason": stopped.reason,
        }
        if stopped is not None and not stopped.interrupted
        else None,
        "summary": {
            "compared": compared,
            "items": len(items),
            "stable": len(items) - len(flips),
            "flipped": len(flips),
            "failedEveryRun": len(failing),
        },
        "flips": [_item(i, full=True) for i in flips],
        "failedEveryRun": [_item(i, full=True) for i in failing],
        "items": [_item(i, full=False) for i in items],
    }
    schemafiles.validate(found, SCHEMA)
    return found


def write(found: dict[str, Any], path: Path) -> None:
    """Write a StabilityReport (validated by `document`) as YAML."""
    textfiles.write(path, yaml.safe_dump(found, sort_keys=False, allow_unicode=True))


def _rows(title: str, items: Sequence[Item], width: int) -> list[str]:
    if not items:
        return []
    runs = len(items[0].runs)
    lines = [
        (
            f"{title:<{width}}  "
            + "  ".join(f"{f'run {k}':<20}" for k in range(1, runs + 1))
        ).rstrip()
    ]
    for item in items:
        lines.append(
            f"{item.id:<{width}}  "
            + "  ".join(f"{o:<20}" for o in item.outcomes).rstrip()
        )
        lines.append(
            "    durations: " + ", ".join(f"{o.seconds:.1f} s" for o in item.runs)
        )
        lines += [
            f"    run {k} ({o.outcome}): {o.message[0] if o.message else '(no message)'}"
            for k, o in enumerate(item.runs, start=1)
            if o.failed
        ]
    return lines


def table(
    stability: Stability | None, runs: Sequence[Ran], stopped: Stopped | None = None
) -> str:
    """The runs, the flips and the items that failed every time, for the console."""
    lines = []
    if stability is not None:
        lines.append(
            f"{len(stability.reports)} runs of {stability.implementation} compared "
            f"({stability.kind}): {len(stability.items)} items, "
            f"{len(stability.flips)} flipped, {len(stability.failing)} failed in every run"
        )
    for index, run in enumerate(runs, start=1):
        status = "" if run.status is None else f" (exit {run.status})"
        lines.append(f"run {index}: {run.report}{status}")
    if stability is not None:
        width = max([len(i.id) for i in stability.items] + [len("failed in every run")])
        lines += _rows("flipped", stability.flips, width)
        lines += _rows("failed in every run", stability.failing, width)
        if not stability.flips:
            lines.append("no item flipped")
    if stopped is not None:
        what = "interrupted" if stopped.interrupted else "stopped"
        lines.append(
            f"{what} in run {stopped.run} (exit {stopped.status}): {stopped.reason}; "
            "its report is not compared"
        )
    return "".join(f"{line}\n" for line in lines)
