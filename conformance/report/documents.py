"""The ConformanceReport: a versioned, schema-checked YAML verdict of one run.

Layout of the document (schema: `report.schema.json`, beside this module):
apiVersion/kind, suite (version, commit, spec version), implementation (name,
version, profile, image digests, claims), environment (fingerprint), run
(session, times, options, reproduce command), summary, results per layout and
spec profile split into Core and Extended, layout divergences, the coverage
ledger, attempts (first try versus final, and the items that needed a rerun:
`conformance.report.reruns`), the mutation score (copied from a
NegativeControlsReport by `conformance.report.mutation` when the run is given one, else
null), the objects cleanup found left behind (leaks), and every test.

`historicalMutationScore` (optional in the schema, so older reports still
read) is upstream's fixed bugs caught / in scope, copied from a HistoryResult
(`make history`) by `conformance.report.historical` when the run is given
`--history-result`, else null.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

import conformance
from conformance.report import ledger as ledgers
from conformance.report import phases
from conformance.report import provenance
from conformance.report import reruns
from conformance.report.outcomes import Outcome
from conformance.report.results import TestRecord

API_VERSION = "wpc.dev/v1alpha1"
KIND = "ConformanceReport"
SCHEMA_PATH = Path(__file__).parent.parent / "report.schema.json"
SUITE_VERSION = conformance.__version__


@dataclass(frozen=True)
class ScenarioDiff:
    """The cross-layout comparison of one scenario."""

    scenario: str
    short_name: str
    layouts: tuple[str, ...]
    differences: list[dict[str, Any]]

    @property
    def undeclared(self) -> list[dict[str, Any]]:
        """Differences no declared divergence explains."""
        return [d for d in self.differences if d["divergence"] is None]


def _counts(records: Iterable[TestRecord], *, first: bool = False) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    key = {
        Outcome.PASSED: "passed",
        Outcome.FAILED: "failed",
        Outcome.SKIPPED: "skipped",
        Outcome.ERROR: "errors",
    }
    for record in records:
        counts[key[record.first_outcome if first else record.outcome]] += 1
    return counts


def verdict(counts: dict[str, int]) -> str:
    """The result of a set of items from their counts (a bucket's, or the run's)."""
    if counts["failed"]:
        return "failure"
    if counts["errors"]:
        return "error"
    if not counts["passed"]:
        return "empty" if not counts["skipped"] else "skipped"
    return "partial" if counts["skipped"] else "success"


def _test_refs(records: Iterable[TestRecord], outcome: Outcome) -> list[dict[str, Any]]:
    return [
        {
            "name": r.short_name,
            "nodeid": r.nodeid,
            "clauses": r.clauses,
            "message": r.message[:500],
        }
        for r in records
        if r.outcome is outcome
    ]


def _bucket(records: list[TestRecord]) -> dict[str, Any]:
    counts = _counts(records)
    return {
        "result": verdict(counts),
        "statistics": counts,
        "failedTests": _test_refs(records, Outcome.FAILED),
        "erroredTests": _test_refs(records, Outcome.ERROR),
        "skippedTests": _test_refs(records, Outcome.SKIPPED),
    }


def results_by_layout(records: list[TestRecord]) -> list[dict[str, Any]]:
    """Core and Extended results for every (layout, spec profile) pair."""
    groups: dict[tuple[str, str], list[TestRecord]] = {}
    for record in records:
        for profile in record.profiles or ["-"]:
            groups.setdefault((record.layout, profile), []).append(record)
    return [
        {
            "layout": layout,
            "profile": profile,
            "core": _bucket([r for r in group if r.support == "Core"]),
            "extended": _bucket([r for r in group if r.support != "Core"]),
        }
        for (layout, profile), group in sorted(groups.items())
    ]


def run_result(final: dict[str, int], *, undeclared: int) -> str:
    """The report's `result`: the items' verdict, failed by an undeclared divergence."""
    result = verdict(final)
    if undeclared and result in {"success", "partial", "empty", "skipped"}:
        return "failure"
    return result


def item_entry(record: TestRecord) -> dict[str, Any]:
    """One item of the report's `tests` (phases for a scenario pytest timed)."""
    entry: dict[str, Any] = {
        "nodeid": record.nodeid,
        "shortName": record.short_name,
        "kind": record.kind,
        "layout": record.layout,
        "clauses": record.clauses,
        "features": record.features,
        "support": record.support,
        "outcome": record.outcome.value,
        "firstOutcome": record.first_outcome.value,
        "attempts": record.attempts,
        "durationSeconds": round(record.duration, 3),
        "message": record.message,
        "evidence": record.evidence,
        "failureKind": record.failure_kind.value if record.failure_kind else None,
        "failedClauses": record.failed_clauses,
    }
    timed = phases.build(record.phase_durations, record.phase_parts)
    if timed is not None and record.kind == "scenario":
        entry["phases"] = timed
    return entry


def suite_commit() -> str:
    """The suite's git commit, or "unknown" outside a checkout."""
    return provenance.commit()


def build(
    *,
    implementation: dict[str, Any],
    environment: dict[str, Any],
    run: dict[str, Any],
    spec_version: str,
    records: list[TestRecord],
    diffs: list[ScenarioDiff],
    ledger: ledgers.Ledger,
    leaks: list[str],
    mutation_score: dict[str, Any] | None = None,
    historical_score: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble the report document (validate with `validate()`)."""
    scenarios = [r for r in records if r.kind == "scenario"]
    final = _counts(scenarios)
    undeclared = [d for d in diffs if d.undeclared]
    summary = {**final, "divergenceFailures": len(undeclared)}
    result = run_result(final, undeclared=len(undeclared))
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "suite": {
            "version": SUITE_VERSION,
            "commit": suite_commit(),
            "specVersion": spec_version,
        },
        "implementation": implementation,
        "environment": environment,
        "run": run,
        "result": result,
        "summary": summary,
        "results": results_by_layout(scenarios),
        "layoutDivergences": {
            "compared": len(diffs),
            "undeclared": [
                {
                    "scenario": d.scenario,
                    "shortName": d.short_name,
                    "differences": d.undeclared,
                }
                for d in undeclared
            ],
            "declared": [
                {"scenario": d.scenario, "shortName": d.short_name, **x}
                for d in diffs
                for x in d.differences
                if x["divergence"] is not None
            ],
        },
        "coverage": ledger.to_json(),
        "attempts": {
            "firstTry": _counts(scenarios, first=True),
            "final": final,
            "retried": reruns.retried(scenarios),
        },
        "mutationScore": mutation_score,
        "historicalMutationScore": historical_score,
        "leaks": leaks,
        "tests": [item_entry(r) for r in records],
    }


def validate(document: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError if the report does not match its schema."""
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator(schema).validate(document)


def write(document: dict[str, Any], path: Path) -> None:
    """Validate, then write the report as YAML."""
    validate(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
