"""Evidence beside the figures: a failed pod's states and log tails, and the load."""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from kubernetes.client.exceptions import ApiException

from reference_impl.bench import manifests
from reference_impl.bench.settings import BenchSettings
from reference_impl.bench.settings import Timeouts

Json = dict[str, Any]
logger = logging.getLogger(__name__)

LOG_TAIL_LINES = 20
"""Lines kept from the end of each container's log."""


def pod_state(pod: Json) -> str:
    """`phase=Running containers=[init=terminated(Completed), main=running]`."""
    status = pod.get("status") or {}
    containers = []
    for kind in ("initContainerStatuses", "containerStatuses"):
        for c in status.get(kind) or []:
            state = c.get("state") or {}
            key = next(iter(state), "unknown")
            detail = state.get(key) or {}
            reason = detail.get("reason", "")
            if "exitCode" in detail:
                reason = f"{reason} exit {detail['exitCode']}".strip()
            containers.append(f"{c.get('name')}={key}{f'({reason})' if reason else ''}")
    return f"phase={status.get('phase')} containers=[{', '.join(containers)}]"


def failed_pod(
    core: Any, *, namespace: str, pod_name: str | None, timeouts: Timeouts
) -> dict[str, Any]:
    """The pod's final state and the last lines of every container's log."""
    if pod_name is None:
        return {"pod": None}
    found: dict[str, Any] = {"pod": pod_name, "logs": {}}
    try:
        pod = json.loads(
            core.read_namespaced_pod(
                pod_name,
                namespace,
                _preload_content=False,
                _request_timeout=timeouts.api_request,
            ).data
        )
    except ApiException as exc:
        found["error"] = f"reading the pod failed: {exc.status} {exc.reason}"
        return found
    found["state"] = pod_state(pod)
    spec = pod.get("spec") or {}
    for container in [*spec.get("initContainers", []), *spec.get("containers", [])]:
        name = container["name"]
        try:
            found["logs"][name] = str(
                core.read_namespaced_pod_log(
                    pod_name,
                    namespace,
                    container=name,
                    tail_lines=LOG_TAIL_LINES,
                    _request_timeout=timeouts.api_request,
                )
            )
        except ApiException as exc:
            found["logs"][name] = f"(log unavailable: {exc.status} {exc.reason})"
    return found


def load_snapshot(core: Any, settings: BenchSettings) -> dict[str, Any]:
    """The host load and the cluster's activity, to judge how shared the run was."""
    timeout = settings.timeouts.api_request
    running = json.loads(
        core.list_pod_for_all_namespaces(
            field_selector="status.phase=Running",
            _preload_content=False,
            _request_timeout=timeout,
        ).data
    )
    others = json.loads(
        core.list_namespace(
            label_selector=f"{manifests.MANAGED_BY}={manifests.MANAGED_BY_VALUE}",
            _preload_content=False,
            _request_timeout=timeout,
        ).data
    )
    return {
        "loadavg_1_5_15": list(os.getloadavg()),
        "cpus": os.cpu_count(),
        "running_pods_cluster_wide": len(running.get("items") or []),
        "wpc_namespaces": len(others.get("items") or []),
    }
