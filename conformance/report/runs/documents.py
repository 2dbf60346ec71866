"""The ConformanceReport: a versioned, schema-checked YAML verdict of one run.

Layout of the document (schema: `report.schema.json`, beside this module):
apiVersion/kind, suite (version, commit, spec version), implementation (name,
version, profile, image digests, claims), environment (fingerprint), cluster
(provider, kubeconfig context, API server URL, Kubernetes version: which cluster
the run used; optional in the schema, null when the run reached none), run
(session, times, options, reproduce command), the result word (`verdict`:
PASS, FAIL or INCOMPLETE over the claimed items, `conformance.report.runs.words`),
summary, results per layout and
spec profile split into Core and Extended, layout divergences, the coverage
ledger, attempts (first try versus final, and the items that needed a rerun:
`conformance.report.items.reruns`), the mutation score (copied from a
NegativeControlsReport by `conformance.report.scores.mutation` when the run is given one, else
null), the objects cleanup found left behind (leaks), and every test.

`historicalMutationScore` (optional in the schema, so older reports still
read) is upstream's fixed bugs caught / in scope, copied from a HistoryResult
(`make history`) by `conformance.report.scores.historical` when the run is given
`--history-result`, else null.

`interrupted` (optional in the schema, like it) is null, or says what stopped
the run early (a signal, or pytest's reason) and lists the tests that ran and
those cut short; the result is then "interrupted" unless a failure or error
already decides it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import conformance
from conformance.report.items import phases
from conformance.report.items import reruns
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord
from conformance.report.runs import ledger as ledgers
from conformance.report.runs import words
from conformance.report.scores import provenance
from conformance.report.scores import schemafiles

API_VERSION = "wpc.dev/v1alpha1"
KIND = "ConformanceReport"
SCHEMA_PATH = Path(__file__).parents[2] / "report.schema.json"
SUITE_VERSION = conformance.__version__
NOT_FAILED = frozenset({"success", "partial", "empty", "skipped"})
"""Results that a layout divergence or an interruption overrides."""


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


def verdict(counts: dict[str, int], *, claimed_skips: int) -> str:
    """The result of a set of items from their counts (a bucket's, or the run's).

    Only a claimed item's skip makes a pass "partial": tests of features the
    implementation does not claim are skipped as "not claimed" and say nothing
    against it (`conformance.report.runs.words`).
    """
    if counts["failed"]:
        return "failure"
    if counts["errors"]:
        return "error"
    if not counts["passed"]:
        return "empty" if not counts["skipped"] else "skipped"
    return "partial" if claimed_skips else "success"


def _claimed_skips(records: Iterable[TestRecord]) -> int:
    return sum(1 for r in records if r.outcome is Outcome.SKIPPED and r.claimed)


def _test_refs(records: Iterable[TestRecord], outcome: Outcome) -> list[dict[str, Any]]:
    return [
        {
            "id": r.test_id,
            "name": r.short_name,
            "nodeid": r.nodeid,
            "clauses": r.clauses,
            "message": r.message[:500],
        }
        for r in records
        if r.outcome is outcome
    ]


def _bucket(records: list[TestRecord], *, interrupted: bool) -> dict[str, Any]:
    counts = _counts(records)
    result = verdict(counts, claimed_skips=_claimed_skips(records))
    return {
        "result": "interrupted" if interrupted and result in NOT_FAILED else result,
        "statistics": counts,
        "failedTests": _test_refs(records, Outcome.FAILED),
        "erroredTests": _test_refs(records, Outcome.ERROR),
        "skippedTests": _test_refs(records, Outcome.SKIPPED),
    }


def results_by_layout(
    records: list[TestRecord], *, interrupted: bool = False
) -> list[dict[str, Any]]:
    """Core and Extended results for every (layout, spec profile) pair.

    In an interrupted run none is a success: what did not run was not judged.
    """
    groups: dict[tuple[str, str], list[TestRecord]] = {}
    for record in records:
        for profile in record.profiles or ["-"]:
            groups.setdefault((record.layout, profile), []).append(record)
    return [
        {
            "layout": layout,
            "profile": profile,
            "core": _bucket(
                [r for r in group if r.support == "Core"], interrupted=interrupted
            ),
            "extended": _bucket(
                [r for r in group if r.support != "Core"], interrupted=interrupted
            ),
        }
        for (layout, profile), group in sorted(groups.items())
    ]


def run_result(
    final: dict[str, int],
    *,
    undeclared: int,
    claimed_skips: int,
    interrupted: bool = False,
) -> str:
    """The report's `result`: the items' verdict, failed by an undeclared divergence.

    An interrupted run is never a success: it is "interrupted" unless what ran
    already failed or errored.
    """
    result = verdict(final, claimed_skips=claimed_skips)
    if undeclared and result in NOT_FAILED:
        return "failure"
    if interrupted and result in NOT_FAILED:
        return "interrupted"
    return result


def item_entry(record: TestRecord) -> dict[str, Any]:
    """One item of the report's `tests` (phases for a scenario pytest timed)."""
    entry: dict[str, Any] = {
        "id": record.test_id,
        "nodeid": record.nodeid,
        "shortName": record.short_name,
        "kind": record.kind,
        "layout": record.layout,
        "clauses": record.clauses,
        "features": record.features,
        "support": record.support,
        "claimed": record.claimed,
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
    interrupted: dict[str, Any] | None = None,
    cluster: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Assemble the report document (validate with `validate()`).

    `cluster`: which cluster the run used (provider, context, server, Kubernetes
    version); None when the run never reached one.

    `interrupted`: what stopped the run early and which tests ran (see the
    schema); such a run is never a success, only a failure or an error when
    what ran already says so.
    """
    scenarios = [r for r in records if r.kind == "scenario"]
    final = _counts(scenarios)
    undeclared = [d for d in diffs if d.undeclared]
    summary = {**final, "divergenceFailures": len(undeclared)}
    result = run_result(
        final,
        undeclared=len(undeclared),
        claimed_skips=_claimed_skips(scenarios),
        interrupted=interrupted is not None,
    )
    word = words.word(
        (r.outcome for r in scenarios if r.claimed),
        divergences=len(undeclared),
        interrupted=interrupted is not None,
    )
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
        "cluster": cluster,
        "run": run,
        "result": result,
        "interrupted": interrupted,
        "verdict": word,
        "summary": summary,
        "results": results_by_layout(scenarios, interrupted=interrupted is not None),
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
    schemafiles.validate(document, SCHEMA_PATH)


def write(document: dict[str, Any], path: Path) -> None:
    """Validate, then write the report as YAML."""
    validate(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
