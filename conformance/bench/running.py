"""A whole benchmark run: namespace, each layout in turn, cleanup, report."""

from __future__ import annotations

import logging
import subprocess
import sys
import uuid
from dataclasses import replace
from datetime import UTC
from datetime import datetime
from pathlib import Path
from typing import Any

from plumbing import commands
from reference_impl.bench import benchmarking
from reference_impl.bench import namespaces
from reference_impl.bench import reporting
from reference_impl.bench.errors import BenchError
from reference_impl.bench.errors import CommandError
from reference_impl.bench.settings import BenchSettings

logger = logging.getLogger(__name__)

KUBECONFIG_LOOKUP_TIMEOUT = 60.0
"""Seconds `python -m clusters kubeconfig` may take to print a path."""


def find_kubeconfig(cluster: str, *, python: str = sys.executable) -> str:
    """The cluster's kubeconfig path, from `python -m clusters kubeconfig --name CLUSTER`.

    A subprocess, so that this package still does not import `clusters`.
    """
    command = [python, "-m", "clusters", "kubeconfig", "--name", cluster]
    try:
        out = commands.capture(
            command, timeout=KUBECONFIG_LOOKUP_TIMEOUT, error=CommandError
        )
    except subprocess.TimeoutExpired as exc:  # `capture` lets a timeout through
        raise CommandError(
            command=command, returncode=-1, output=f"timed out: {exc}"
        ) from exc
    path = out.strip().splitlines()[-1:]
    if not path:
        raise CommandError(command=command, returncode=0, output="no path printed")
    return path[0]


def _clients(kubeconfig: str) -> tuple[Any, Any, Any]:
    from kubernetes import client
    from kubernetes import config

    try:
        api = config.new_client_from_config(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    except (config.ConfigException, OSError) as exc:
        raise BenchError(f"cannot load kubeconfig {kubeconfig}: {exc}") from exc
    return (
        client.CoreV1Api(api),
        client.RbacAuthorizationV1Api(api),
        client.CustomObjectsApi(api),
    )


def run(
    settings: BenchSettings, *, kubeconfig: str, cluster: str, report_path: Path
) -> dict[str, Any]:
    """Benchmark every layout in `settings` in a fresh namespace; write and return the report."""
    if not settings.session_id:
        settings = replace(settings, session_id=f"bench-{uuid.uuid4().hex[:8]}")
    unknown = [lay for lay in settings.layouts if lay not in settings.instance_ids]
    if unknown:
        raise BenchError(f"no controller instance ID known for layout(s) {unknown}")
    core, rbac, custom = _clients(kubeconfig)
    name = namespaces.unique_name()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    results = []
    namespaces.create(
        core,
        rbac,
        name=name,
        session_id=settings.session_id,
        timeouts=settings.timeouts,
    )
    try:
        for layout in settings.layouts:
            logger.info("[%s] Benchmarking layout %s.", name, layout)
            results.append(
                benchmarking.run_layout(
                    core, custom, namespace=name, layout=layout, settings=settings
                )
            )
    finally:
        namespaces.delete(
            core, name=name, session_id=settings.session_id, timeouts=settings.timeouts
        )
    document = reporting.report(
        results,
        settings=settings,
        cluster=cluster,
        namespace=name,
        started_at=started_at,
    )
    reporting.write(document, report_path)
    return document
