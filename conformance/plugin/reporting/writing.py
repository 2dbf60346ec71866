"""End of run, in the reporting process: layout diffs, the ConformanceReport, JUnit.

The report is written twice: YAML (the record) and HTML beside it (for people).

Layout divergence checks need every layout's result of a scenario, which under
pytest-xdist exist only in the controller after the loop; each undeclared
divergence becomes a synthetic failed test report, so it shows up in the
terminal, the exit code, the JUnit XML and the report alike.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.plugin.reporting import reproducing
from conformance.plugin.state import runs
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import DECLARATION_ATTR
from conformance.report.items.records import FAILURE_ATTR
from conformance.report.items.records import OUTCOME_ATTR
from conformance.report.items.records import TestRecord
from conformance.report.items.records import scenario_of
from conformance.report.rendering import html
from conformance.report.rendering import junit
from conformance.report.runs import divergences
from conformance.report.runs import documents
from conformance.report.runs import durations
from conformance.report.runs import ledger


def scenario_diffs(config: pytest.Config) -> list[documents.ScenarioDiff]:
    """Compare the observations of every scenario that passed in several layouts."""
    settings = runs.of(config).settings
    known = divergences.load(settings.divergences_path)
    by_scenario: dict[str, list[TestRecord]] = {}
    for record in runs.of(config).results.records():
        if (
            record.kind == "scenario"
            and record.outcome is Outcome.PASSED
            and record.observations is not None
        ):
            by_scenario.setdefault(record.scenario, []).append(record)
    diffs = []
    for scenario, records in by_scenario.items():
        if len(records) < 2:
            continue
        found = divergences.compare(
            short_name=records[0].short_name,
            observations={r.layout: r.observations or {} for r in records},
            divergences=known,
        )
        diffs.append(
            documents.ScenarioDiff(
                scenario=scenario,
                short_name=records[0].short_name,
                layouts=tuple(r.layout for r in records),
                differences=[d.to_json() for d in found],
            )
        )
    return diffs


def divergence_report(
    diff: documents.ScenarioDiff, template: TestRecord
) -> pytest.TestReport:
    """A failed synthetic report for a scenario with undeclared layout differences."""
    lines = [
        f"undeclared difference between layouts {' and '.join(diff.layouts)} "
        f"(declare expected ones in conformance/divergences.yaml):"
    ]
    lines += [f"  {d['key']}: {d['values']}" for d in diff.undeclared]
    nodeid = f"{scenario_of(template.nodeid, template.layout)}[layout-divergence]"
    report = pytest.TestReport(
        nodeid=nodeid,
        location=(nodeid.partition("::")[0], None, nodeid.partition("::")[2]),
        keywords={},
        outcome="failed",
        longrepr="\n".join(lines),
        when="call",
    )
    setattr(report, OUTCOME_ATTR, Outcome.FAILED.value)
    # A comparison that failed, naming no clause: never a clause-specific kill.
    setattr(report, FAILURE_ATTR, {"kind": FailureKind.ASSERTION.value, "clauses": []})
    setattr(
        report,
        DECLARATION_ATTR,
        {
            "short_name": template.short_name,
            "test_id": f"{diff.scenario}[layout-divergence]",
            "layout": "+".join(diff.layouts),
            "clauses": template.clauses,
            "features": template.features,
            "support": template.support,
            "profiles": template.profiles,
            "scenario": diff.scenario,
            "kind": "divergence",
        },
    )
    return report


def check_divergences(config: pytest.Config) -> list[documents.ScenarioDiff]:
    """Run the layout diff and log a failed report per undeclared divergence."""
    diffs = scenario_diffs(config)
    records = {r.scenario: r for r in runs.of(config).results.records()}
    for diff in diffs:
        if diff.undeclared:
            report = divergence_report(diff, records[diff.scenario])
            config.hook.pytest_runtest_logreport(report=report)
    return diffs


def shard_of(config: pytest.Config) -> dict[str, Any]:
    """The report's `run.shard` of a sharded run (`wpc merge` checks it); else nothing."""
    shard = runs.of(config).settings.shard
    if shard is None:
        return {}
    return {
        "shard": {
            "index": shard.index,
            "count": shard.count,
            "selection": runs.of(config).selection or "unknown",
        }
    }


def document(
    config: pytest.Config, diffs: list[documents.ScenarioDiff]
) -> dict[str, Any]:
    """The ConformanceReport of this run."""
    settings = runs.of(config).settings
    profile = runs.of(config).profile
    spec = runs.of(config).spec
    context = runs.of(config).context
    images = context.images if context else {}
    decls = runs.of(config).declarations
    claimed: frozenset[str] = runs.of(config).claimed
    return documents.build(
        implementation={
            "name": profile.name,
            "version": (context.implementation_version if context else "")
            or profile.version,
            **profile.maker(),
            "profile": str(profile.path),
            "images": [
                {"role": role, "ref": ref, "digest": str(images.get(ref, "unknown"))}
                for role, ref in sorted(profile.images.items())
            ],
            "claimedLayouts": list(profile.layouts),
            "claimedFeatures": sorted(profile.features),
            "unsupportedLayouts": dict(profile.unsupported_layouts),
        },
        environment=(
            context.environment
            if context and context.environment
            else {
                "provider": settings.provider,
                "kubernetesVersion": "unknown",
                "containerRuntimeVersions": [],
                "nodes": [],
                "featureGates": {},
            }
        ),
        run={
            "sessionId": context.session_id if context else "not-prepared",
            "startedAt": context.started_at if context else "",
            "finishedAt": datetime.datetime.now(datetime.UTC).isoformat(
                timespec="seconds"
            ),
            "selectedLayouts": list(settings.layouts),
            "selectedFeatures": sorted(claimed),
            "timeoutScale": settings.timeout_scale,
            "workers": int(getattr(config.option, "numprocesses", 0) or 0),
            "allowForeignCluster": settings.allow_foreign_cluster,
            "skipInstall": settings.skip_install,
            "reproduce": reproducing.command(config),
            **shard_of(config),
        },
        spec_version=str(spec.version),
        records=runs.of(config).results.records(),
        diffs=diffs,
        ledger=ledger.build(spec, decls.values()),
        leaks=runs.of(config).leaks,
        mutation_score=runs.of(config).mutation_score,
        historical_score=runs.of(config).historical_score,
        interrupted=runs.of(config).interruption,
        cluster=(context.cluster or None) if context else None,
    )


def write_outputs(
    config: pytest.Config, diffs: list[documents.ScenarioDiff]
) -> list[Path]:
    """Write the report (YAML, and HTML beside it) and the JUnit XML; return the paths."""
    settings = runs.of(config).settings
    written = []
    if settings.report is not None:
        report = document(config, diffs)
        documents.write(report, settings.report)
        written.append(settings.report)
        page = html.path_beside(settings.report)
        html.write(report, page)
        written.append(page)
    if settings.update_durations:
        measured = durations.of_tests(
            documents.item_entry(r) for r in runs.of(config).results.records()
        )
        durations.refresh(
            settings.durations_path,
            measured,
            source=f"ConformanceReport of {runs.of(config).profile.name}, "
            f"refreshed by the run of {datetime.date.today().isoformat()}",
        )
        written.append(settings.durations_path)
    if settings.junit is not None:
        junit.write(
            runs.of(config).results.records(),
            settings.junit,
            suite_name=f"wpc-{runs.of(config).profile.name}",
        )
        written.append(settings.junit)
    return written
