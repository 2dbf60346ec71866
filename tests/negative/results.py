"""What a fault's run showed: each test's outcome, read from its ConformanceReport."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.negative.controls import TestRef

RANK = {"failed": 3, "error": 2, "skipped": 1, "passed": 0}
"""Which outcome speaks for a ShortName with several test functions."""


@dataclass(frozen=True)
class Observed:
    """One test's result in a fault's run."""

    test: TestRef
    outcome: str
    """passed, failed, skipped, error, or "missing" when the run has no such test."""
    clauses: tuple[str, ...] = ()
    message: str = ""


def merge(a: Observed, b: Observed) -> Observed:
    """One result for two functions of a ShortName: failures win, ties combine."""
    if RANK.get(a.outcome, 2) != RANK.get(b.outcome, 2):
        return max(a, b, key=lambda o: RANK.get(o.outcome, 2))
    clauses = tuple(dict.fromkeys(a.clauses + b.clauses))
    message = "\n".join(m for m in (a.message, b.message) if m)
    return Observed(a.test, a.outcome, clauses, message)


def read_report(path: Path) -> dict[TestRef, Observed]:
    """The scenario results of a ConformanceReport, by ShortName and layout."""
    document = yaml.safe_load(path.read_text())
    found: dict[TestRef, Observed] = {}
    for test in document["tests"]:
        if test["kind"] != "scenario":
            continue  # a layout-divergence check, not a test of its own
        ref = TestRef(short_name=test["shortName"], layout=test["layout"])
        seen = Observed(
            test=ref,
            outcome=test["outcome"],
            clauses=tuple(test["clauses"]),
            message=test["message"],
        )
        found[ref] = merge(found[ref], seen) if ref in found else seen
    return found
