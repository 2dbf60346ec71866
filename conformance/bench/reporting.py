"""The benchmark's results as JSON (`reports/bench.json`) and as a printed table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from reference_impl.bench import figures
from reference_impl.bench.results import LayoutResult
from reference_impl.bench.settings import BenchSettings

SCHEMA = "wpc.dev/bench/v1"

SERIES = {
    "pod_startup_s": "pod_startup",
    "created_to_user_s": "created_to_user",
    "created_to_started_s": "created_to_started",
    "started_to_user_s": "started_to_user",
    "seen_after_created_s": "seen_after_created",
    "submit_to_pod_seen_s": "submit_to_pod_seen",
    "workflow_duration_s": "workflow_duration",
    "clock_skew_s": "clock_skew",
}
"""JSON key of each summarized series -> `Sample` field."""

METHOD = (
    "pod_startup = pod first seen by a watch on this host (CLOCK_BOOTTIME at event "
    "arrival) -> user command's first instruction (`read </proc/uptime` in the main "
    "container, the same boot clock, 10 ms). Cross-checks use the API's whole-second "
    "creationTimestamp and main startedAt. Throughput = succeeded / (first submit -> "
    "last finish) with `concurrency` workflows in flight."
)


def layout_json(result: LayoutResult) -> dict[str, Any]:
    """One layout's figures, summaries, failures and raw samples."""
    makespan = None
    if result.first_submit_boot is not None and result.last_finish_boot is not None:
        makespan = result.last_finish_boot - result.first_submit_boot
    succeeded = len(result.samples)
    entry: dict[str, Any] = {
        "instance_id": result.instance_id,
        "count": result.count,
        "concurrency": result.concurrency,
        "succeeded": succeeded,
        "failed": len(result.failures),
        "makespan_s": makespan,
        "workflows_per_minute": (
            figures.per_minute(count=succeeded, seconds=makespan) if makespan else None
        ),
    }
    for key, attribute in SERIES.items():
        values = [getattr(sample, attribute) for sample in result.samples]
        entry[key] = figures.summarize(values).as_json()
    entry["load"] = result.load
    entry["host_boot_epoch"] = result.boot_epoch
    entry["failures"] = result.failures
    entry["samples"] = [sample.as_json() for sample in result.samples]
    return entry


def report(
    results: Sequence[LayoutResult],
    *,
    settings: BenchSettings,
    cluster: str,
    namespace: str,
    started_at: str,
) -> dict[str, Any]:
    """The whole run as one JSON document."""
    return {
        "schema": SCHEMA,
        "cluster": cluster,
        "namespace": namespace,
        "session_id": settings.session_id,
        "started_at": started_at,
        "method": METHOD,
        "settings": {
            "count": settings.count,
            "concurrency": settings.concurrency,
            "layouts": list(settings.layouts),
            "instance_ids": settings.instance_ids,
            "image": settings.image,
            "timeouts": asdict(settings.timeouts),
        },
        "layouts": {r.layout: layout_json(r) for r in results},
    }


def write(document: dict[str, Any], path: Path) -> None:
    """Write the JSON report, creating its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n")


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _pair(summary: dict[str, Any]) -> str:
    return f"{_seconds(summary['median'])} / {_seconds(summary['p90'])}"


def _rows(entry: dict[str, Any]) -> list[tuple[str, str]]:
    rate = entry["workflows_per_minute"]
    load = entry.get("load") or {}
    before = (load.get("before") or {}).get("loadavg_1_5_15")
    after = (load.get("after") or {}).get("loadavg_1_5_15")
    return [
        (
            "workflows",
            f"{entry['succeeded']}/{entry['count']} ok, {entry['failed']} failed",
        ),
        ("in flight", str(entry["concurrency"])),
        ("makespan (s)", _seconds(entry["makespan_s"])),
        ("workflows per minute", "-" if rate is None else f"{rate:.1f}"),
        ("pod startup median / p90 (s)", _pair(entry["pod_startup_s"])),
        ("  creationTimestamp -> user cmd", _pair(entry["created_to_user_s"])),
        ("  creationTimestamp -> startedAt", _pair(entry["created_to_started_s"])),
        ("  startedAt -> user cmd", _pair(entry["started_to_user_s"])),
        ("submit -> pod seen", _pair(entry["submit_to_pod_seen_s"])),
        ("workflow duration", _pair(entry["workflow_duration_s"])),
        (
            "load 1m before -> after",
            f"{before[0]:.1f} -> {after[0]:.1f}" if before and after else "-",
        ),
    ]


def table(document: dict[str, Any]) -> str:
    """A fixed-width table: one column per layout, one row per figure."""
    layouts = list(document["layouts"])
    columns = [_rows(document["layouts"][name]) for name in layouts]
    labels = [label for label, _ in columns[0]] if columns else []
    cells = [
        [label] + [column[i][1] for column in columns] for i, label in enumerate(labels)
    ]
    header = ["", *layouts]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *cells]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    failures = [
        f"  {name}: {f['workflow']}: {f['reason']}"
        for name in layouts
        for f in document["layouts"][name]["failures"]
    ]
    if failures:
        lines += ["", "failures:", *failures]
    return "\n".join(lines) + "\n"
