"""Verdicts of negative controls and the mutation score.

A killer *counts* when it failed by an assertion whose message names one of the
fault's clauses (the plugin's `failureKind: assertion` and `failedClauses`, issue
11): a failure for any other reason proves nothing about the clause. A fault is
*killed* when every killer counts and every canary passed. Otherwise it
*survived* (a killer passed), is *not caught (timeout)* or *not caught (harness
error)* (a killer failed only by a timeout, or by another exception or a harness
problem), *unspecific* (a killer's assertion names none of the fault's clauses, or
a canary failed too: the fault broke more than its clause), *error* (a test was
skipped or did not run), or *pending* (the table says why). Each problem comes
with its evidence: the first `E ` line of the failure.

The mutation score is the issue's: MUST clauses with a killing test / MUST clauses,
where a clause counts when a killed fault breaks it and a killer's failed assertion
names it (the clauses a killer's marker cites do not count). Beside it, the
fault-level score (killed, total, score, survivors). A conformance run of the
reference implementation given `--negative-controls` copies both into its
ConformanceReport's `mutationScore` (`conformance.report.scores.mutation`, which also owns
the summary's schema: the suite must not import these tests).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.report.scores import mutation
from conformance.report.scores.provenance import Provenance
from tests.negative.controls import PENDING
from tests.negative.controls import Control
from tests.negative.controls import TestRef
from tests.negative.results import ASSERTION
from tests.negative.results import HARNESS_ERROR
from tests.negative.results import TIMEOUT
from tests.negative.results import Observed

IMPLEMENTATION = "reference"
"""Whose broken variants the controls are (the `reference-faulty` profile's base)."""
KILLED = "killed"
SURVIVED = "survived"
UNSPECIFIC = "unspecific"
NOT_CAUGHT_TIMEOUT = "timeout"
NOT_CAUGHT_HARNESS = "harness-error"
ERROR = "error"
LABELS = {
    NOT_CAUGHT_TIMEOUT: "not caught (timeout)",
    NOT_CAUGHT_HARNESS: "not caught (harness error)",
}
"""How a status reads in a sentence, where its name alone would mislead."""


def label(status: str) -> str:
    """`timeout` -> `not caught (timeout)`; other statuses read as they are."""
    return LABELS.get(status, status)


@dataclass(frozen=True)
class Verdict:
    """What one fault's run showed."""

    control: Control
    status: str
    killed_clauses: tuple[str, ...]
    """The fault's clauses a killer's failed assertion named (only when killed)."""
    problems: tuple[str, ...]
    """Why the fault is not cleanly killed, one sentence each."""
    observed: tuple[Observed, ...]
    duration: float


def _first_line(text: str) -> str:
    """The first `E ` line of a pytest failure, else its last line (a short reason)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("E ")]
    # A socket the client leaked surfaces at teardown; the call's reason says more.
    reasons = [line for line in errors if "ResourceWarning" not in line]
    return (reasons[:1] or errors[:1] or lines[-1:] or [""])[0][:300]


def _kind(seen: Observed) -> str | None:
    """A killer's failure kind: an errored test is a harness error unless it timed out."""
    if seen.outcome not in ("failed", "error"):
        return None
    if seen.outcome == "error" and seen.failure_kind != TIMEOUT:
        return HARNESS_ERROR
    return seen.failure_kind or HARNESS_ERROR


def counted(control: Control, seen: Observed) -> tuple[str, ...]:
    """The fault's clauses a killer's failed assertion names (empty: it does not count)."""
    if _kind(seen) != ASSERTION:
        return ()
    return tuple(c for c in control.clauses if c in seen.failed_clauses)


def _status(control: Control, killers: list[Observed], canaries: list[Observed]) -> str:
    kinds = [_kind(s) for s in killers]
    if any(s.outcome == "passed" for s in killers):
        return SURVIVED
    if None in kinds or any(s.outcome not in ("passed", "failed") for s in canaries):
        return ERROR
    if TIMEOUT in kinds:
        return NOT_CAUGHT_TIMEOUT
    if HARNESS_ERROR in kinds:
        return NOT_CAUGHT_HARNESS
    if any(not counted(control, s) for s in killers):
        return UNSPECIFIC
    if any(s.outcome == "failed" for s in canaries):
        return UNSPECIFIC
    return KILLED


def _killer_problem(control: Control, test: TestRef, seen: Observed) -> str | None:
    kind = _kind(seen)
    evidence = _first_line(seen.message)
    if kind is None:
        return f"killer {test.label} {seen.outcome}, expected failed"
    if kind != ASSERTION:
        return f"killer {test.label} {label(NOT_CAUGHT_TIMEOUT if kind == TIMEOUT else NOT_CAUGHT_HARNESS)}: {evidence}"
    if not counted(control, seen):
        named = ", ".join(seen.failed_clauses) or "no clause"
        return (
            f"killer {test.label} failed an assertion naming {named}, "
            f"none of {', '.join(control.clauses)}: {evidence}"
        )
    return None


def judge(
    control: Control, observed: Mapping[TestRef, Observed], *, duration: float
) -> Verdict:
    """Compare a fault's observed results with its row of the table."""
    if control.status == PENDING:
        return Verdict(control, PENDING, (), (control.reason,), (), duration)
    killers = [observed.get(t) or Observed(t, "missing") for t in control.killers]
    canaries = [observed.get(t) or Observed(t, "missing") for t in control.canaries]
    problems: list[str] = []
    named: set[str] = set()
    for test, seen in zip(control.killers, killers, strict=True):
        problem = _killer_problem(control, test, seen)
        if problem is not None:
            problems.append(problem)
        named |= set(counted(control, seen))
    for test, seen in zip(control.canaries, canaries, strict=True):
        if seen.outcome != "passed":
            problems.append(
                f"canary {test.label} {seen.outcome}, expected passed: "
                f"{_first_line(seen.message)}"
            )
    status = _status(control, killers, canaries)
    ordered = tuple(c for c in control.clauses if c in named)
    return Verdict(
        control=control,
        status=status,
        killed_clauses=ordered if status == KILLED else (),
        problems=tuple(problems),
        observed=tuple(killers + canaries),
        duration=duration,
    )


@dataclass(frozen=True)
class Score:
    """The mutation score of a set of fault entries (see `verdict_json`)."""

    killed_must: tuple[str, ...]
    must_total: int
    faults_killed: int
    faults_total: int
    survivors: tuple[str, ...]
    """Faults not killed, pending ones included."""

    @property
    def clause_score(self) -> float:
        """MUST clauses with a killing test / MUST clauses."""
        return len(self.killed_must) / self.must_total if self.must_total else 0.0

    @property
    def fault_score(self) -> float:
        """Killed faults / faults."""
        return self.faults_killed / self.faults_total if self.faults_total else 0.0


def score(entries: Iterable[Mapping[str, Any]], *, must: Iterable[str]) -> Score:
    """Clause- and fault-level scores; only MUST clauses count for the former."""
    entries = list(entries)
    must_set = frozenset(must)
    killed = {c for e in entries if e["status"] == KILLED for c in e["killedClauses"]}
    return Score(
        killed_must=tuple(sorted(killed & must_set)),
        must_total=len(must_set),
        faults_killed=sum(e["status"] == KILLED for e in entries),
        faults_total=len(entries),
        survivors=tuple(e["fault"] for e in entries if e["status"] != KILLED),
    )


def family(clause: str) -> str:
    """`WPC-POD-003` -> `POD`."""
    return clause.split("-")[1]


def by_family(killed: Iterable[str], must: Iterable[str]) -> dict[str, dict[str, int]]:
    """MUST clauses killed / MUST clauses, per clause family, every family listed."""
    totals: dict[str, dict[str, int]] = {}
    for clause in sorted(frozenset(must)):
        totals.setdefault(family(clause), {"killed": 0, "total": 0})["total"] += 1
    for clause in frozenset(killed) & frozenset(must):
        totals[family(clause)]["killed"] += 1
    return totals


def _test_json(seen: Observed, role: str) -> dict[str, Any]:
    return {
        "test": seen.test.short_name,
        "layout": seen.test.layout,
        "role": role,
        "outcome": seen.outcome,
        "clauses": list(seen.clauses),
        "failureKind": _kind(seen),
        "failedClauses": list(seen.failed_clauses),
        "message": _first_line(seen.message),
    }


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """One fault's entry of the summary (and its per-fault file)."""
    control = verdict.control
    roles = ["killer"] * len(control.killers) + ["canary"] * len(control.canaries)
    return {
        "fault": control.fault,
        "clauses": list(control.clauses),
        "status": verdict.status,
        "killedClauses": list(verdict.killed_clauses),
        "problems": list(verdict.problems),
        "timeoutScale": control.timeout_scale,
        "durationSeconds": round(verdict.duration, 1),
        "tests": [
            _test_json(seen, role)
            for seen, role in zip(verdict.observed, roles, strict=False)
        ],
    }


def summary(
    entries: list[dict[str, Any]],
    *,
    must: Iterable[str],
    not_run: Iterable[Mapping[str, Any]],
    duration: float,
    measured_on: Provenance,
) -> dict[str, Any]:
    """The `reports/negative-controls.yaml` document from per-fault entries.

    `not_run`: the faults left out, with why (`tests.negative.unrun`);
    `measured_on`: the code and spec the faults ran against, so that a report
    copying the score can tell when it no longer describes its own code.
    """
    result = score(entries, must=must)
    return {
        "apiVersion": "wpc.dev/v1alpha1",
        "kind": "NegativeControlsReport",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "implementation": IMPLEMENTATION,
        "durationSeconds": round(duration, 1),
        "measuredOn": measured_on.to_json(),
        "mutationScore": {
            "counting": mutation.CLAUSE_ASSERTION,
            "killed": len(result.killed_must),
            "total": result.must_total,
            "score": round(result.clause_score, 4),
            "killedClauses": list(result.killed_must),
            "byFamily": by_family(result.killed_must, must),
        },
        "faultScore": {
            "killed": result.faults_killed,
            "total": result.faults_total,
            "score": round(result.fault_score, 4),
            "survivors": list(result.survivors),
        },
        "notRun": sorted((dict(e) for e in not_run), key=lambda e: str(e["fault"])),
        "faults": entries,
    }


def validate(document: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless the summary matches its schema."""
    mutation.validate(document)
