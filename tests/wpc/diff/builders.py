"""Small hand-made ConformanceReports for the diff tests.

`report(...)` gives a schema-valid report from a few (nodeid, layout, outcome)
tests, so each test states only the difference it is about.
"""

from __future__ import annotations

from typing import Any

from conformance.report.runs import documents


def entry(
    name: str,
    layout: str,
    outcome: str = "passed",
    *,
    clauses: tuple[str, ...] = ("WPC-STATUS-002",),
    first: str | None = None,
    attempts: int = 1,
    seconds: float = 10.0,
) -> dict[str, Any]:
    """One entry of a report's `tests`, named `test_<name>[<layout>]`."""
    return {
        "nodeid": f"conformance/tests/test_{name.lower()}.py::test_{name.lower()}[{layout}]",
        "shortName": name,
        "kind": "scenario",
        "layout": layout,
        "clauses": list(clauses),
        "features": ["NODE_STATUS"],
        "support": "Core",
        "outcome": outcome,
        "firstOutcome": first or outcome,
        "attempts": attempts,
        "durationSeconds": seconds,
        "message": "",
        "evidence": [],
    }


def report(
    tests: list[dict[str, Any]],
    *,
    features: tuple[str, ...] = ("LEGACY_LAYOUT",),
    layouts: tuple[str, ...] = ("legacy", "initless"),
    uncovered: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A valid ConformanceReport holding `tests` (checked against the schema)."""
    key = {
        "passed": "passed",
        "failed": "failed",
        "skipped": "skipped",
        "error": "errors",
    }
    final = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    first = dict(final)
    for t in tests:
        final[key[t["outcome"]]] += 1
        first[key[t["firstOutcome"]]] += 1
    covered: dict[str, list[str]] = {}
    for t in tests:
        for clause in t["clauses"]:
            covered.setdefault(clause, []).append(t["shortName"])
    document = {
        "apiVersion": documents.API_VERSION,
        "kind": documents.KIND,
        "date": "2026-01-01T00:00:00+00:00",
        "suite": {"version": "0.1.0", "commit": "abc", "specVersion": "1.0"},
        "implementation": {
            "name": "impl",
            "version": "1.0",
            "profile": "impl.yaml",
            "images": [],
            "claimedLayouts": list(layouts),
            "claimedFeatures": list(features),
        },
        "environment": {
            "provider": "local",
            "kubernetesVersion": "v1.36.4",
            "containerRuntimeVersions": [],
            "nodes": [],
            "featureGates": {},
        },
        "run": {
            "sessionId": "s",
            "startedAt": "2026-01-01T00:00:00+00:00",
            "finishedAt": "2026-01-01T00:10:00+00:00",
            "selectedLayouts": list(layouts),
            "selectedFeatures": [],
            "timeoutScale": 1.0,
            "workers": 0,
            "allowForeignCluster": False,
            "skipInstall": False,
            "reproduce": "wpc run --implementation impl",
        },
        "result": "failure" if final["failed"] else "success",
        "summary": {**final, "divergenceFailures": 0},
        "results": [],
        "layoutDivergences": {"compared": 0, "undeclared": [], "declared": []},
        "coverage": {
            "covered": [{"id": c, "tests": n} for c, n in sorted(covered.items())],
            "uncovered": [
                {"id": c, "level": "MUST", "missingLayouts": ["legacy"], "summary": "-"}
                for c in uncovered
            ],
            "partiallyCovered": [],
            "uncoveredMust": list(uncovered),
        },
        "attempts": {"firstTry": first, "final": final, "retried": []},
        "mutationScore": None,
        "leaks": [],
        "tests": tests,
    }
    documents.validate(document)
    return document


def chaos_case(name: str, layout: str, outcome: str = "passed") -> Any:
    """One ChaosReport entry: experiment `name` in `layout` with `outcome`."""
    from chaos.reporting.chaos_report import Check
    from chaos.reporting.chaos_report import ExperimentResult

    good = outcome == "passed"
    return ExperimentResult(
        name=name,
        layout=layout,
        outcome=outcome,
        injection_verified=outcome != "not-applicable",
        injection_evidence="seen",
        steady_state_before=Check(ok=True, details="ok"),
        steady_state_after=Check(ok=good, details="ok" if good else "not steady"),
        invariants_checked=(),
        violations=(),
        duration_seconds=30.0,
        history_path="h.jsonl",
        timeline_path="t.html",
        reason="the provider cannot signal a container"
        if outcome == "not-applicable"
        else "",
    )


def chaos_report(cases: dict[tuple[str, str], str]) -> dict[str, Any]:
    """A valid ChaosReport with one entry per (experiment, layout) -> outcome."""
    from chaos.reporting.chaos_report import RunContext
    from chaos.reporting.chaos_report import build_report

    context = RunContext(
        date="2026-01-01T00:00:00+00:00",
        suite_version="0.1.0",
        suite_commit="abc",
        implementation_name="argo-workflows",
        implementation_profile="argo-workflows.yaml",
        provider="local",
        kubernetes_version="v1.36.4",
    )
    return build_report(
        context,
        [
            chaos_case(name, layout, outcome)
            for (name, layout), outcome in cases.items()
        ],
    )
