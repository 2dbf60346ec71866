"""The benchmark's result as a YAML document (`BenchResult`) and as a printed table.

The document's shape is `wpc/bench/bench.schema.json`; a layout entry
holds its counts, makespan, workflows per minute, a summary (n, median, p90,
min, max) of the pod startup and of every phase, the load it shared the
machine with, its failures and every raw sample. `ratios` compares the
layouts of the run (init-less / legacy), and `comparing` compares two runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from conformance.errors import DataError
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from wpc import validating
from wpc.bench import figures
from wpc.bench import samples
from wpc.bench.results import LayoutResult
from wpc.bench.settings import BenchSettings

API_VERSION = "wpc.dev/v1alpha1"
KIND = "BenchResult"
SCHEMA_PATH = Path(__file__).with_name("bench.schema.json")

METHOD = (
    "Black-box, from this host: each milestone is bounded by the API's whole-second "
    "timestamp (creationTimestamp, PodScheduled, PodReadyToStartContainers, "
    "Initialized, wait/supervisor startedAt) and the arrival of the first watch "
    "event showing it: the API server's own stamps take the upper bound, the "
    "kubelet's (reported after its next relist) the midpoint. Node completion is "
    "the arrival of the workflow event showing the node done. Handshake READY is "
    "the status marker's mtime; main's "
    "first instruction and exit are CLOCK_BOOTTIME read by the user command (10 ms). "
    "Phases are gaps between consecutive milestones. Throughput = succeeded / "
    "(first submit -> last finish) with `inflight` workflows in flight."
)

SERIES = {
    "podStartup": "pod_startup",
    "submitToPod": "submit_to_pod",
    "workflowDuration": "workflow_duration",
    "mainExitCheck": "main_exit_check",
    "clockSkew": "clock_skew",
}
"""Document key of each summarized `Sample` series -> its field."""


def layout_json(result: LayoutResult) -> dict[str, Any]:
    """One layout's figures, summaries, failures and raw samples."""
    makespan = result.makespan
    succeeded = len(result.samples)
    entry: dict[str, Any] = {
        "instanceId": result.instance_id,
        "namespace": result.namespace,
        "workflows": result.count,
        "inflight": result.inflight,
        "succeeded": succeeded,
        "failed": len(result.failures),
        "makespanSeconds": makespan,
        "workflowsPerMinute": (
            figures.per_minute(count=succeeded, seconds=makespan) if makespan else None
        ),
    }
    for key, attribute in SERIES.items():
        values = [getattr(sample, attribute) for sample in result.samples]
        entry[key] = figures.summarize(values).as_json()
    entry["phases"] = {
        phase: figures.summarize(
            [s.phases.get(phase) for s in result.samples]
        ).as_json()
        for phase in samples.PHASES
    }
    entry["load"] = result.load
    entry["hostBootEpoch"] = result.boot_epoch
    entry["failures"] = result.failures
    entry["evidence"] = result.evidence
    entry["samples"] = [sample.as_json() for sample in result.samples]
    return entry


def ratios(top: dict[str, Any], bottom: dict[str, Any]) -> dict[str, Any]:
    """`top / bottom` of two layout entries: throughput, and medians of every series.

    A median below `figures.RATIO_FLOOR` gives no ratio (None).
    """
    return {
        "workflowsPerMinute": figures.ratio(
            top["workflowsPerMinute"], bottom["workflowsPerMinute"]
        ),
        "podStartupMedian": figures.ratio(
            top["podStartup"]["median"], bottom["podStartup"]["median"]
        ),
        "phaseMedians": {
            phase: figures.ratio(
                top["phases"][phase]["median"], bottom["phases"][phase]["median"]
            )
            for phase in samples.PHASES
        },
    }


def report(
    results: Sequence[LayoutResult],
    *,
    settings: BenchSettings,
    profile: profiles.Profile,
    context: RunContext,
) -> dict[str, Any]:
    """The whole run as one document (see the module docstring)."""
    layouts = {r.layout: layout_json(r) for r in results}
    document: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "implementation": {
            "name": profile.name,
            "version": profile.version,
            "profile": str(profile.path),
        },
        "sessionId": context.session_id,
        "startedAt": context.started_at,
        "environment": {
            key: context.environment.get(key)
            for key in ("provider", "kubernetesVersion", "containerRuntimeVersions")
        },
        "images": context.images,
        "method": METHOD,
        "settings": {
            "workflows": settings.workflows,
            "inflight": settings.inflight,
            "layouts": list(settings.layouts),
            "pickedUp": settings.picked_up,
            "timeouts": dataclasses.asdict(settings.timeouts),
        },
        "layouts": layouts,
        "ratios": {},
    }
    if {"legacy", "initless"} <= set(layouts):
        document["ratios"]["initlessOverLegacy"] = ratios(
            layouts["initless"], layouts["legacy"]
        )
    return document


def validate(document: dict[str, Any], *, source: Path) -> None:
    """DataError (naming `source` and the key) unless `document` has the documented shape."""
    validating.validate(document, SCHEMA_PATH, what=f"{source}: not a {KIND}: ")


def write(document: dict[str, Any], path: Path) -> None:
    """Check the document against its schema, then write it as YAML."""
    validate(document, source=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def read(path: Path) -> dict[str, Any]:
    """A result written by `write` (checked against the schema again)."""
    try:
        document: dict[str, Any] = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(f"cannot read bench result {path}: {exc}") from exc
    validate(document, source=path)
    return document
