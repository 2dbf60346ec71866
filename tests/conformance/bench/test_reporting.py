"""We test these aspects of the report: a layout's JSON (counts, makespan,
workflows per minute, summaries of every series, failures) and the printed
table (one column per layout, the headline figures, the failure list).
"""

from __future__ import annotations

import json

import pytest

from reference_impl.bench import reporting
from reference_impl.bench import samples
from reference_impl.bench.results import LayoutResult
from reference_impl.bench.settings import BenchSettings


def _sample(name: str, startup: float) -> samples.Sample:
    return samples.Sample(
        workflow=name,
        pod=name,
        phase="Succeeded",
        pod_startup=startup,
        created_to_user=startup + 0.5,
        created_to_started=2.0,
        started_to_user=1.0,
        seen_after_created=0.2,
        submit_to_pod_seen=0.05,
        workflow_duration=startup + 3,
        clock_skew=-0.3,
    )


def _result(layout: str = "legacy") -> LayoutResult:
    return LayoutResult(
        layout=layout,
        instance_id=f"wpc-{layout}",
        count=4,
        concurrency=2,
        samples=[_sample(f"wf-{i}", float(i)) for i in range(1, 4)],
        failures=[{"workflow": "wf-4", "reason": "workflow phase Failed: boom"}],
        first_submit_boot=100.0,
        last_finish_boot=136.0,
        load={
            "before": {"loadavg_1_5_15": [1.0, 2.0, 3.0]},
            "after": {"loadavg_1_5_15": [2.5, 2.0, 3.0]},
        },
    )


def test_layout_json_counts_rates_and_summaries():
    entry = reporting.layout_json(_result())
    assert (entry["succeeded"], entry["failed"]) == (3, 1)
    assert entry["makespan_s"] == 36.0
    assert entry["workflows_per_minute"] == pytest.approx(5.0)
    assert entry["pod_startup_s"]["median"] == 2.0
    assert entry["pod_startup_s"]["p90"] == pytest.approx(2.8)
    assert set(reporting.SERIES) <= set(entry)
    assert len(entry["samples"]) == 3


def test_a_layout_that_never_started_has_no_rate():
    result = LayoutResult(layout="legacy", instance_id="x", count=1, concurrency=1)
    entry = reporting.layout_json(result)
    assert entry["makespan_s"] is None
    assert entry["workflows_per_minute"] is None
    assert entry["pod_startup_s"]["n"] == 0


def test_report_is_json_and_names_the_settings(tmp_path):
    document = reporting.report(
        [_result()],
        settings=BenchSettings(count=4, concurrency=2, session_id="bench-1"),
        cluster="wpc",
        namespace="wpc-bench-1",
        started_at="2026-11-22T03:00:00+00:00",
    )
    path = tmp_path / "out" / "bench.json"
    reporting.write(document, path)
    loaded = json.loads(path.read_text())
    assert loaded["schema"] == reporting.SCHEMA
    assert loaded["settings"]["concurrency"] == 2
    assert loaded["settings"]["timeouts"]["workflow_completed"] == 300.0
    assert loaded["layouts"]["legacy"]["instance_id"] == "wpc-legacy"


def test_table_has_a_column_per_layout_and_lists_failures():
    document = reporting.report(
        [_result("legacy"), _result("initless")],
        settings=BenchSettings(count=4, concurrency=2, session_id="s"),
        cluster="wpc",
        namespace="ns",
        started_at="t",
    )
    text = reporting.table(document)
    lines = text.splitlines()
    assert lines[0].split() == ["legacy", "initless"]
    assert "workflows per minute" in text
    assert any(
        line.startswith("pod startup median / p90 (s)")
        and line.count("2.00 / 2.80") == 2
        for line in lines
    )
    assert "load 1m before -> after" in text
    assert "1.0 -> 2.5" in text
    assert "  legacy: wf-4: workflow phase Failed: boom" in lines
