from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from chaos.errors import ReportError
from chaos.invariants.violations import Evidence
from chaos.invariants.violations import ObjectRef
from chaos.invariants.violations import Violation
from chaos.reporting.chaos_report import Check
from chaos.reporting.chaos_report import ExperimentResult
from chaos.reporting.chaos_report import RunContext
from chaos.reporting.chaos_report import build_report
from chaos.reporting.chaos_report import validate_report
from chaos.reporting.chaos_report import write_report

CONTEXT = RunContext(
    date="2026-11-22T08:00:00Z",
    suite_version="0.1.0",
    suite_commit="768f065",
    implementation_name="reference",
    implementation_profile="conformance/profiles/reference.yaml",
    provider="local",
    kubernetes_version="v1.31.2",
)
PASSED = ExperimentResult(
    name="controller-restart",
    layout="legacy",
    outcome="passed",
    injection_verified=True,
    injection_evidence="controller pod uid changed from a to b",
    steady_state_before=Check(ok=True, details="3 workflows Succeeded"),
    steady_state_after=Check(ok=True, details="3 workflows Succeeded"),
    invariants_checked=("terminal-within-deadline", "one-live-pod-per-node"),
    violations=(),
    duration_seconds=42.5,
    history_path="reports/chaos/controller-restart-legacy.jsonl",
    timeline_path="reports/chaos/controller-restart-legacy.html",
)
VIOLATION = Violation(
    "one-live-pod-per-node",
    ObjectRef("Pod", "wf-b", "uid-b"),
    "pods wf-a and wf-b of workflow wf are both live for node wf-1",
    Evidence((2, 3), ("102", "103")),
)


def test_a_valid_report_builds_and_is_written_as_yaml(tmp_path: Path) -> None:
    failed = replace(
        PASSED, layout="initless", outcome="failed", violations=(VIOLATION,)
    )

    report = build_report(CONTEXT, [PASSED, failed])
    path = write_report(report, tmp_path / "out" / "chaos-report.yaml")

    loaded = yaml.safe_load(path.read_text())
    assert loaded == report
    assert loaded["kind"] == "ChaosReport"
    assert loaded["summary"] == {
        "total": 2,
        "passed": 1,
        "failed": 1,
        "injectionUnverified": 0,
        "error": 0,
        "notApplicable": 0,
        "skipped": 0,
        "violations": 1,
    }
    assert loaded["experiments"][1]["violations"][0]["evidence"]["lines"] == [2, 3]


def test_an_invalid_report_names_each_error_with_its_path() -> None:
    report = build_report(CONTEXT, [PASSED])
    report["experiments"][0]["outcome"] = "flaky"
    del report["environment"]["provider"]

    with pytest.raises(ReportError) as caught:
        validate_report(report)

    message = str(caught.value)
    assert "$.experiments[0].outcome: 'flaky' is not one of" in message
    assert "$.environment: 'provider' is a required property" in message


def test_a_passed_experiment_cannot_carry_violations() -> None:
    lying = replace(PASSED, violations=(VIOLATION,))

    with pytest.raises(ReportError, match=r"\$\.experiments\[0\]\.violations"):
        build_report(CONTEXT, [lying])


def test_an_unverified_injection_is_its_own_outcome() -> None:
    unverified = replace(
        PASSED, outcome="injection-unverified", injection_verified=False
    )

    report = build_report(CONTEXT, [unverified])

    assert report["summary"]["injectionUnverified"] == 1


def test_a_not_applicable_experiment_says_why() -> None:
    not_applicable = replace(
        PASSED, outcome="not-applicable", injection_verified=False, reason="needs x"
    )

    report = build_report(CONTEXT, [not_applicable])

    assert report["experiments"][0]["reason"] == "needs x"
    assert report["summary"]["notApplicable"] == 1
    with pytest.raises(ReportError, match="'reason' is a required property"):
        build_report(CONTEXT, [replace(not_applicable, reason="")])


def test_an_older_report_s_skipped_entry_is_still_read() -> None:
    report = build_report(CONTEXT, [replace(PASSED, outcome="skipped")])

    assert report["summary"]["skipped"] == 1
