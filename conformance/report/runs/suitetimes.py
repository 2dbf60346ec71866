"""How long a run took and how well its workers were packed, from its report.

`python -m conformance bench-suite REPORT` (issue 27's benchmark): the wall
time (the report's run.startedAt to run.finishedAt, so preparing the run and
writing the report count), the sum of the items' own times, the packing
efficiency (sum / workers / wall: 1.0 means every worker was busy all the
time) and the slowest items, each with its slowest phase when the report has
phases. A run without pytest-xdist counts as one worker.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from conformance.errors import DataError
from conformance.report.items import phases
from conformance.report.items.itemkeys import key_of_test


@dataclass(frozen=True)
class SuiteTimes:
    """The measures of one run."""

    wall: float
    items: float
    workers: int
    slowest: list[str]

    @property
    def efficiency(self) -> float:
        """Sum of item times / workers / wall time."""
        return self.items / self.workers / self.wall if self.wall > 0 else 0.0

    def lines(self) -> list[str]:
        """The benchmark's output."""
        return [
            f"wall time: {self.wall:.0f} s ({self.wall / 60:.1f} min)",
            f"sum of item times: {self.items:.0f} s",
            f"workers: {self.workers}",
            f"packing efficiency (sum / workers / wall): {self.efficiency:.2f}",
            f"slowest items ({len(self.slowest)}):",
            *self.slowest,
        ]


def _moment(report: dict[str, Any], key: str) -> datetime.datetime:
    text = str(report["run"].get(key) or "")
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError as exc:
        raise DataError(f"run.{key}: not a time: {text!r}") from exc


def measure(report: dict[str, Any]) -> SuiteTimes:
    """The run's times; DataError when the report lacks its start or end."""
    wall = (
        _moment(report, "finishedAt") - _moment(report, "startedAt")
    ).total_seconds()
    scenarios = [t for t in report["tests"] if t.get("kind", "scenario") == "scenario"]
    return SuiteTimes(
        wall=wall,
        items=sum(float(t["durationSeconds"]) for t in scenarios),
        workers=max(1, int(report["run"].get("workers") or 0)),
        slowest=phases.slowest_lines(
            phases.Timed(
                name=key_of_test(t),
                seconds=float(t["durationSeconds"]),
                phases=t.get("phases"),
            )
            for t in scenarios
        ),
    )
