"""A whole benchmark run: profile, cluster, then per layout install, measure, clean up.

Preparing is the suite's own (`implementations.preparing.prepare_run`: the
cluster's kubeconfig and marker check, its fingerprint; the profile's
`prepare` commands through the same `Driver`); then each layout gets its own
instance and namespace (`installing`), one after the other, and the YAML
result is written once every layout is done.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from conformance.errors import DataError
from conformance.harness.cluster import kube
from conformance.harness.inspecting import evidence
from conformance.harness.workload.workflows import Workflows
from conformance.implementations import driving
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from wpc.bench import benchmarking
from wpc.bench import installing
from wpc.bench import reporting
from wpc.bench.results import LayoutResult
from wpc.bench.settings import BenchSettings

logger = logging.getLogger(__name__)


def load_snapshot(clients: kube.Clients, *, timeout: float) -> dict[str, Any]:
    """The host's load and the cluster's activity, to judge how shared the run was."""
    running = json.loads(
        clients.core.list_pod_for_all_namespaces(
            field_selector="status.phase=Running",
            _preload_content=False,
            _request_timeout=timeout,
        ).data
    )
    return {
        "loadavg_1_5_15": list(os.getloadavg()),
        "cpus": os.cpu_count(),
        "running_pods_cluster_wide": len(running.get("items") or []),
    }


def result_path(settings: BenchSettings, profile: profiles.Profile) -> Path:
    """`<reports>/bench-<implementation>.yaml`."""
    return settings.reports_dir / f"bench-{profile.name}.yaml"


def _tools_image(profile: profiles.Profile) -> str:
    image = profile.images.get("tools")
    if not image:
        raise DataError(
            f"{profile.path}: images.tools: the benchmark runs its user command in "
            "the profile's tools image (sh, date, stat), and the profile has none"
        )
    return image


def _layout(
    clients: kube.Clients,
    driver: driving.Driver,
    *,
    layout: str,
    image: str,
    session_id: str,
    settings: BenchSettings,
) -> LayoutResult:
    instance = installing.bench_instance(
        driver.profile, layout=layout, instance_id=settings.instance_id(layout)
    )
    api_call = settings.timeouts.api_call
    with (
        preparing.installed(driver, instance),
        installing.namespace(
            clients, layout=layout, session_id=session_id, settings=settings
        ) as (name, labels),
    ):
        before = load_snapshot(clients, timeout=api_call)
        workflows = Workflows(
            clients=clients,
            namespace=name,
            labels=labels,
            instance=instance,
            timeouts=settings.timeouts,
        )
        result = benchmarking.run_layout(
            clients, workflows, image=image, settings=settings
        )
        result.load = {
            "before": before,
            "after": load_snapshot(clients, timeout=api_call),
        }
        if result.failures:
            folder = settings.reports_dir / "bench-evidence" / name
            evidence.collect_namespace(evidence.Collector(folder), clients, name)
            result.evidence = str(folder)
    return result


def run(settings: BenchSettings, *, cluster: ClusterChoice) -> dict[str, Any]:
    """Benchmark every selected layout the profile claims; write and return the result."""
    profile = profiles.load(
        settings.implementation, variables=dict(settings.profile_vars)
    )
    image = _tools_image(profile)
    layouts = tuple(layout for layout in settings.layouts if layout in profile.layouts)
    if not layouts:
        raise DataError(
            f"{profile.path}: claims none of the layouts asked for "
            f"({', '.join(settings.layouts)})"
        )
    log_dir = settings.reports_dir / "logs"
    context = preparing.prepare_run(
        cluster=cluster,
        profile=profile,
        layouts=layouts,
        skip_install=True,
        log_dir=log_dir,
        timeouts=settings.timeouts,
    )
    driver = driving.Driver(
        profile=profile,
        values=context.placeholders,
        log_dir=log_dir,
        timeout=settings.timeouts.install,
    )
    if settings.prepare:
        logger.info("Preparing %s for layouts %s.", profile.name, ", ".join(layouts))
        preparing.load_tools_image(cluster)
        driver.prepare(layouts)
    clients = kube.connect(context.kubeconfig)
    results = [
        _layout(
            clients,
            driver,
            layout=layout,
            image=image,
            session_id=context.session_id,
            settings=settings,
        )
        for layout in layouts
    ]
    document = reporting.report(
        results, settings=settings, profile=profile, context=context
    )
    reporting.write(document, result_path(settings, profile))
    return document
