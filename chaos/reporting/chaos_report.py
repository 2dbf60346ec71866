"""Build, validate and write a ChaosReport (chaos-report.schema.json).

The report is a plain dict shaped by the schema; the dataclasses here only
make the callers name every field. `build_report()` validates what it builds,
so a report that reaches disk always matches the schema.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from chaos.errors import ReportError
from chaos.invariants.violations import Violation

SCHEMA_PATH = Path(__file__).with_name("chaos-report.schema.json")
API_VERSION = "wpc.dev/v1alpha1"
OUTCOMES = ("passed", "failed", "injection-unverified", "error", "not-applicable")
LEGACY_OUTCOMES = ("skipped",)
"""Outcomes older runs wrote (before `not-applicable`); kept readable, counted apart."""


@dataclass(frozen=True)
class Check:
    """A yes/no observation and what it was based on."""

    ok: bool
    details: str


@dataclass(frozen=True)
class ExperimentResult:
    """One experiment in one layout."""

    name: str
    layout: str
    outcome: str
    injection_verified: bool
    injection_evidence: str
    steady_state_before: Check
    steady_state_after: Check
    invariants_checked: tuple[str, ...]
    violations: tuple[Violation, ...]
    duration_seconds: float
    history_path: str
    timeline_path: str
    failed_checks: tuple[tuple[str, str, str], ...] = ()
    """(activity, kind, message) of each activity that failed."""
    faults: tuple[tuple[str, float, float], ...] = ()
    """(label, start, end) of each fault window, unix seconds."""
    reason: str = ""
    """Why the experiment does not apply (outcome `not-applicable`)."""

    def to_dict(self) -> dict[str, Any]:
        """The experiment's entry in the report."""
        return {
            "name": self.name,
            "layout": self.layout,
            "outcome": self.outcome,
            "injectionVerified": {
                "verified": self.injection_verified,
                "evidence": self.injection_evidence,
            },
            "steadyStateBefore": vars(self.steady_state_before).copy(),
            "steadyStateAfter": vars(self.steady_state_after).copy(),
            "invariantsChecked": list(self.invariants_checked),
            "violations": [v.to_dict() for v in self.violations],
            "durationSeconds": self.duration_seconds,
            "historyPath": self.history_path,
            "timelinePath": self.timeline_path,
            "failedChecks": [
                {"activity": a, "kind": k, "message": m}
                for a, k, m in self.failed_checks
            ],
            "faults": [
                {"label": label, "start": start, "end": end}
                for label, start, end in self.faults
            ],
        } | ({"reason": self.reason} if self.reason else {})


@dataclass(frozen=True)
class RunContext:
    """What the whole run was: when, which suite, which implementation, where."""

    date: str
    suite_version: str
    suite_commit: str
    implementation_name: str
    implementation_profile: str
    provider: str
    kubernetes_version: str


@cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def validate_report(report: Mapping[str, Any]) -> None:
    """Raise `ReportError` listing every schema error with its JSON path."""
    validator = jsonschema.Draft202012Validator(
        _schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  {e.json_path}: {e.message}" for e in errors]
        raise ReportError(
            "the ChaosReport does not match its schema:\n" + "\n".join(lines)
        )


def summarize(entries: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Counts per outcome of the report's entries, and the number of violations."""
    counts = Counter(str(e["outcome"]) for e in entries)
    return {
        "total": len(entries),
        "passed": counts["passed"],
        "failed": counts["failed"],
        "injectionUnverified": counts["injection-unverified"],
        "error": counts["error"],
        "notApplicable": counts["not-applicable"],
        "skipped": counts["skipped"],
        "violations": sum(len(e["violations"]) for e in entries),
    }


def build_report(
    context: RunContext, experiments: Sequence[ExperimentResult]
) -> dict[str, Any]:
    """The ChaosReport of a run, validated against the schema."""
    report: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "ChaosReport",
        "date": context.date,
        "suite": {"version": context.suite_version, "commit": context.suite_commit},
        "implementation": {
            "name": context.implementation_name,
            "profile": context.implementation_profile,
        },
        "environment": {
            "provider": context.provider,
            "kubernetesVersion": context.kubernetes_version,
        },
        "experiments": [e.to_dict() for e in experiments],
    }
    report["summary"] = summarize(report["experiments"])
    validate_report(report)
    return report


def write_report(report: Mapping[str, Any], path: Path | str) -> Path:
    """Validate `report` and write it as YAML; returns the path written."""
    validate_report(report)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        yaml.safe_dump(dict(report), sort_keys=False, default_flow_style=False),
        encoding="utf-8",
    )
    return target
