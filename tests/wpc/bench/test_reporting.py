"""We test these aspects of the result: a layout's entry (counts, makespan,
workflows per minute, summaries of the pod startup and of every phase,
failures), the init-less / legacy ratios, the document checked against
`bench.schema.json` on writing and reading (a broken file is a DataError
naming the key), and the printed tables (one column per layout with a ratio
column; two runs per layout with first / second).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.errors import DataError
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from wpc.bench import reporting
from wpc.bench import samples
from wpc.bench import tables
from wpc.bench.results import LayoutResult
from wpc.bench.settings import BenchSettings


def _sample(name: str, startup: float) -> samples.Sample:
    phases = dict.fromkeys(samples.PHASES, startup / 10)
    return samples.Sample(
        workflow=name,
        pod=name,
        phase="Succeeded",
        milestones={"first_instruction": startup},
        phases=phases,
        pod_startup=startup,
        submit_to_pod=0.05,
        workflow_duration=startup + 3,
        main_exit_check=0.3,
        clock_skew=-0.3,
    )


def _result(layout: str = "legacy", scale: float = 1.0) -> LayoutResult:
    return LayoutResult(
        layout=layout,
        instance_id=f"wpc-bench-{layout}",
        namespace=f"wpc-bench-{layout}-1",
        count=4,
        inflight=2,
        samples=[_sample(f"wf-{i}", i * scale) for i in range(1, 4)],
        failures=[
            {
                "workflow": "wf-4",
                "reason": "workflow phase Failed: boom",
                "last_observed": "x",
            }
        ],
        first_submit_boot=100.0,
        last_finish_boot=136.0,
        load={
            "before": {"loadavg_1_5_15": [1.0, 2.0, 3.0]},
            "after": {"loadavg_1_5_15": [2.5, 2.0, 3.0]},
        },
        evidence="reports/bench-evidence/ns",
    )


def _document(*results: LayoutResult) -> dict:
    context = RunContext(
        session_id="s1",
        started_at="2026-11-22T03:00:00+00:00",
        kubeconfig="k",
        kubectl="kubectl",
        instances=(),
        environment={"kubernetesVersion": "v1.36.0"},
    )
    return reporting.report(
        results,
        settings=BenchSettings(workflows=4, inflight=2),
        profile=profiles.load("reference"),
        context=context,
    )


def test_layout_entry_counts_rates_and_summaries():
    entry = reporting.layout_json(_result())
    assert (entry["succeeded"], entry["failed"]) == (3, 1)
    assert entry["makespanSeconds"] == 36.0
    assert entry["workflowsPerMinute"] == pytest.approx(5.0)
    assert entry["podStartup"]["median"] == 2.0
    assert entry["podStartup"]["p90"] == pytest.approx(2.8)
    assert set(entry["phases"]) == set(samples.PHASES)
    assert entry["phases"]["scheduled"]["median"] == pytest.approx(0.2)
    assert len(entry["samples"]) == 3


def test_a_layout_that_never_started_has_no_rate():
    result = LayoutResult(
        layout="legacy", instance_id="x", namespace="n", count=1, inflight=1
    )
    entry = reporting.layout_json(result)
    assert entry["makespanSeconds"] is None
    assert entry["workflowsPerMinute"] is None
    assert entry["podStartup"]["n"] == 0


def test_both_layouts_give_initless_over_legacy_ratios():
    document = _document(_result("legacy"), _result("initless", scale=2.0))
    ratios = document["ratios"]["initlessOverLegacy"]
    assert ratios["podStartupMedian"] == pytest.approx(2.0)
    assert ratios["workflowsPerMinute"] == pytest.approx(1.0)
    assert ratios["phaseMedians"]["scheduled"] == pytest.approx(2.0)


def test_medians_below_the_resolution_give_no_ratio():
    document = _document(_result("legacy", scale=0.1), _result("initless"))
    # legacy phase medians are 0.02 s: below figures.RATIO_FLOOR.
    ratios = document["ratios"]["initlessOverLegacy"]
    assert ratios["phaseMedians"]["scheduled"] is None
    assert ratios["podStartupMedian"] == pytest.approx(10.0)


def test_one_layout_has_no_ratios():
    assert _document(_result("legacy"))["ratios"] == {}


def test_the_document_round_trips_through_its_schema(tmp_path: Path):
    document = _document(_result("legacy"), _result("initless"))
    path = tmp_path / "out" / "bench-reference.yaml"
    reporting.write(document, path)
    loaded = reporting.read(path)
    assert loaded["kind"] == "BenchResult"
    assert loaded["implementation"]["name"] == "reference"
    assert loaded["settings"]["timeouts"]["workflow_completed"] == 180.0
    assert loaded["layouts"]["legacy"]["instanceId"] == "wpc-bench-legacy"


def test_a_broken_result_file_names_the_key(tmp_path: Path):
    document = _document(_result("legacy"))
    del document["layouts"]["legacy"]["phases"]["scheduled"]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(DataError, match=r"layouts/legacy/phases.*scheduled"):
        reporting.read(path)


def test_run_table_has_a_column_per_layout_a_ratio_and_the_failures():
    document = _document(_result("legacy"), _result("initless", scale=2.0))
    text = tables.run_table(document)
    lines = text.splitlines()
    assert lines[0] == "reference 0.1.0 (session s1)"
    assert lines[1].split() == ["legacy", "initless", "initless", "/", "legacy"]
    startup = next(line for line in lines if line.startswith("pod startup"))
    assert startup.split()[-7:] == ["2.00", "/", "2.80", "4.00", "/", "5.60", "2.00"]
    assert any(line.strip().startswith("handshake READY") for line in lines)
    assert "  legacy: wf-4: workflow phase Failed: boom" in lines
    assert "  legacy: reports/bench-evidence/ns" in lines


def test_compare_table_puts_two_runs_side_by_side_per_layout():
    first = _document(_result("legacy"))
    second = _document(_result("legacy", scale=2.0))
    second["implementation"]["name"] = "argo-workflows"
    text = tables.compare_table(first, second)
    assert text.startswith("layout legacy\n")
    header = text.splitlines()[1]
    assert header.split() == [
        "reference",
        "argo-workflows",
        "reference",
        "/",
        "argo-workflows",
    ]
    startup = next(line for line in text.splitlines() if line.startswith("pod startup"))
    assert startup.rstrip().endswith("0.50")
