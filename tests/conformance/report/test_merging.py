"""We test these aspects of `merge` (shard reports joined into one):

- a full run's items split the way `--shard I/N` splits them (duration-balanced,
  a scenario's layouts together), each shard's report built as the plugin
  builds it, merged: the diff logic of `diff` finds no change from the
  unsharded report, and its verdicts, counts per layout, coverage ledger,
  layout comparisons, attempts and JUnit XML are the same;
- reports of different code, spec, implementation or selection, an unsharded
  report, a shard given twice and a missing shard are refused by name, and
  the CLI exits 10 without writing anything;
- bench-suite prints a committed run's wall time, item times, packing
  efficiency and slowest items.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import spec as specs
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.plugin.state import scheduling
from conformance.report import merging
from conformance.report.items.itemkeys import item_key
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord
from conformance.report.items.records import scenario_of
from conformance.report.rendering import junit
from conformance.report.runs import documents
from conformance.report.runs import ledger
from conformance.report.runs import words
from wpc import suite_cli as cli
from wpc.diff import comparing

REFERENCE_RUN = Path(
    "docs/results/negative-controls-2026-11-24-final/healthy-reference/"
    "conformance-reference.yaml"
)
SHARDS = 4


@functools.cache
def committed_run() -> dict[str, Any]:
    return yaml.safe_load(REFERENCE_RUN.read_text())


@dataclass(frozen=True)
class Declared:
    short_name: str
    clauses: tuple[str, ...]
    layouts: tuple[str, ...]


def records_of(committed: dict[str, Any]) -> list[TestRecord]:
    """The committed run's items as records, one failed and one retried to show."""
    spec = specs.load()
    profile = {r.id: str(r.profile) for r in spec.requirements}
    records = []
    for test in committed["tests"]:
        outcome = Outcome(test["outcome"])
        record = TestRecord(
            nodeid=test["nodeid"],
            short_name=test["shortName"],
            layout=test["layout"],
            clauses=test["clauses"],
            features=test["features"],
            support=test["support"],
            profiles=sorted({profile.get(c, "controller") for c in test["clauses"]}),
            scenario=scenario_of(test["nodeid"], test["layout"]),
            tries=[{"setup": Outcome.PASSED, "call": outcome}],
            message=test["message"],
            duration=float(test["durationSeconds"]),
            phase_durations={"call": float(test["durationSeconds"])},
            claimed=words.is_claimed(test),
        )
        records.append(record)
    records[3].tries = [{"setup": Outcome.PASSED, "call": Outcome.FAILED}]
    records[3].failure = {"kind": FailureKind.ASSERTION.value, "clauses": []}
    records[5].tries.insert(0, {"setup": Outcome.PASSED, "call": Outcome.FAILED})
    return records


def diffs_of(records: list[TestRecord]) -> list[documents.ScenarioDiff]:
    """One comparison per scenario that passed in both layouts; some differ."""
    by_scenario: dict[str, list[TestRecord]] = {}
    for r in records:
        if r.outcome is Outcome.PASSED:
            by_scenario.setdefault(r.scenario, []).append(r)
    found = []
    for number, (scenario, pair) in enumerate(sorted(by_scenario.items())):
        if len(pair) < 2:
            continue
        values = {"values": {"legacy": "a", "initless": "b"}}
        differences = [
            {"key": "k.declared", **values, "divergence": "known"},
            *([{"key": "k.new", **values, "divergence": None}] if number == 6 else []),
        ]
        found.append(
            documents.ScenarioDiff(
                scenario=scenario,
                short_name=pair[0].short_name,
                layouts=tuple(r.layout for r in pair),
                differences=differences if number % 3 == 0 else [],
            )
        )
    return found


def report_of(
    records: list[TestRecord],
    diffs: list[documents.ScenarioDiff],
    *,
    session: str,
    shard: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A report as the plugin writes it (`conformance.plugin.reporting.writing.document`)."""
    spec = specs.load()
    declared = {
        r.scenario: Declared(r.short_name, tuple(r.clauses), ("legacy", "initless"))
        for r in records_of(committed_run())
    }
    committed = committed_run()
    return documents.build(
        implementation=committed["implementation"],
        environment=committed["environment"],
        run={
            **committed["run"],
            "sessionId": session,
            **({"shard": shard} if shard else {}),
        },
        spec_version=str(spec.version),
        records=records,
        diffs=diffs,
        ledger=ledger.build(spec, declared.values()),
        leaks=[f"{session}-leak"] if shard and shard["index"] == 2 else [],
    )


def split(
    records: list[TestRecord], diffs: list[documents.ScenarioDiff]
) -> list[dict[str, Any]]:
    """The full run as SHARDS shard reports, split as `--wpc-shard I/N` would."""
    units = [
        scheduling.Unit(
            key=item_key(short_name=r.short_name, nodeid=r.nodeid, layout=r.layout),
            seconds=r.duration,
            blocks=(f"scenario:{r.scenario}",),
        )
        for r in records
    ]
    assigned = scheduling.assign(units, SHARDS)
    selection = scheduling.selection_digest(u.key for u in units)
    shard_of = {
        r.scenario: assigned[u.key] for r, u in zip(records, units, strict=True)
    }
    return [
        report_of(
            [r for r in records if shard_of[r.scenario] == index],
            [d for d in diffs if shard_of[d.scenario] == index],
            session=f"s{index}",
            shard={"index": index, "count": SHARDS, "selection": selection},
        )
        for index in range(1, SHARDS + 1)
    ]


def sorted_lists(value: Any) -> Any:
    """The value with every list sorted: item order is arrival order, not a verdict."""
    if isinstance(value, dict):
        return {k: sorted_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((sorted_lists(v) for v in value), key=repr)
    return value


@pytest.fixture(scope="module")
def full_and_shards() -> tuple[dict[str, Any], list[dict[str, Any]], list[TestRecord]]:
    records = records_of(committed_run())
    diffs = diffs_of(records)
    full = report_of(records, diffs, session="whole")
    return full, split(records, diffs), records


def shards_of(reports: list[dict[str, Any]]) -> list[merging.Shard]:
    return [
        merging.Shard(f"shard-{r['run']['shard']['index']}.yaml", r) for r in reports
    ]


def test_merged_shards_equal_the_unsharded_report(full_and_shards) -> None:
    full, shards, records = full_and_shards
    assert all(s["tests"] for s in shards)
    assert full["summary"]["failed"] == 1
    assert full["summary"]["divergenceFailures"] == 1
    assert full["attempts"]["retried"]
    merged = merging.merge(shards_of(list(reversed(shards))))
    diff = comparing.compare(full, merged)
    assert not diff.items
    assert not diff.added
    assert not diff.removed
    assert not diff.clauses
    assert not diff.clauses_added
    assert not diff.clauses_removed
    assert [c.old for c in diff.first_try] == [c.new for c in diff.first_try]
    for part in (
        "result",
        "summary",
        "results",
        "layoutDivergences",
        "coverage",
        "attempts",
        "tests",
    ):
        assert sorted_lists(merged[part]) == sorted_lists(full[part]), part
    assert merged["leaks"] == ["s2-leak"]
    assert merged["run"]["mergedShards"]["sessions"] == ["s1", "s2", "s3", "s4"]
    assert "shard" not in merged["run"]
    whole = junit.document(merging.junit_records(full["tests"]), suite_name="x")
    joined = junit.document(merging.junit_records(merged["tests"]), suite_name="x")
    assert whole.getroot().attrib == joined.getroot().attrib
    assert sorted(junit.document(records, suite_name="x").getroot().attrib.items()) == (
        sorted(whole.getroot().attrib.items())
    )


def altered(
    report: dict[str, Any], path: tuple[str, ...], value: Any
) -> dict[str, Any]:
    changed = copy.deepcopy(report)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


@pytest.mark.parametrize(
    ("path", "value", "problem"),
    [
        (("suite", "commit"), "f" * 40, "code (suite version and commit) or spec"),
        (("suite", "specVersion"), "9.9", "code (suite version and commit) or spec"),
        (("implementation", "version"), "9.9.9", "implementation or profile"),
        (("run", "shard", "selection"), "sha256:other", "selection"),
        (("run", "selectedLayouts"), ["legacy"], "selected layouts"),
    ],
)
def test_shards_of_different_runs_are_refused(
    full_and_shards, path: tuple[str, ...], value: Any, problem: str
) -> None:
    _, shards, _ = full_and_shards
    odd = [shards[0], altered(shards[1], path, value), *shards[2:]]
    expected = f"shard-2.yaml and shard-1.yaml .*{re.escape(problem)}"
    with pytest.raises(DataError, match=expected):
        merging.merge(shards_of(odd))


def test_overlapping_missing_and_unsharded_reports_are_refused(full_and_shards) -> None:
    full, shards, _ = full_and_shards
    with pytest.raises(DataError, match="shard 2/4 given twice"):
        merging.merge(shards_of([*shards, shards[1]]))
    with pytest.raises(DataError, match=r"shard\(s\) 3/4 missing"):
        merging.merge(shards_of([shards[0], shards[1], shards[3]]))
    with pytest.raises(DataError, match=r"whole\.yaml is not a shard's report"):
        merging.merge([merging.Shard("whole.yaml", full), *shards_of(shards)])


def test_the_merge_command_writes_report_html_and_junit_or_exits_10(
    full_and_shards, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, shards, _ = full_and_shards
    paths = []
    for report in shards:
        path = tmp_path / f"shard-{report['run']['shard']['index']}.yaml"
        path.write_text(yaml.safe_dump(report))
        paths.append(str(path))
    out = tmp_path / "merged" / "conformance-reference.yaml"
    assert cli.main(["merge", *paths[:3], "-o", str(out)]) == ExitCode.INVALID_INPUT
    assert "shard(s) 4/4 missing" in capsys.readouterr().err
    assert not out.parent.exists()
    assert cli.main(["merge", *paths, "-o", str(out)]) == 0
    documents.validate(yaml.safe_load(out.read_text()))
    assert out.with_suffix(".html").exists()
    assert (out.parent / "junit-reference.xml").exists()


def test_bench_suite_prints_wall_item_time_efficiency_and_the_slowest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["bench-suite", str(REFERENCE_RUN)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        "wall time: 730 s (12.2 min)",
        "sum of item times: 2357 s",
        "workers: 4",
        "packing efficiency (sum / workers / wall): 0.81",
    ]
    assert lines[4] == "slowest items (10):"
    assert lines[5].startswith("  164.3 s  RecoveryWithStatusFinalizer[legacy]::test_")
    assert len(lines) == 15


def test_bench_suite_names_a_report_without_times(tmp_path: Path, capsys) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(altered(committed_run(), ("run", "startedAt"), "")))
    assert cli.main(["bench-suite", str(path)]) == ExitCode.INVALID_INPUT
    assert f"{path}: run.startedAt: not a time" in capsys.readouterr().err


def test_an_interrupted_shard_is_refused(full_and_shards) -> None:
    _, shards, _ = full_and_shards
    cut = copy.deepcopy(shards[1])
    cut["interrupted"] = {
        "reason": "SIGTERM",
        "ran": [],
        "unfinished": [],
        "collected": 3,
    }
    with pytest.raises(DataError, match="interrupted shard \\(SIGTERM\\): run that"):
        merging.merge(shards_of([shards[0], cut, *shards[2:]]))
