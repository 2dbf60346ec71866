"""Deliberate faults about sidecars the controller or their emissary stopped.

A sidecar still running when every main container has exited is stopped (SIGTERM, then
SIGKILL), so it ends with exit code 143 or 137; `inference.infer_failed_reason` ignores
those codes, and the node ends as `main` decided (WPC-KILL-001, WPC-KILL-004). Each fault
here breaks that for one outcome of `main`, and nothing else:

- `sidecar-stop-fails-node`: a node whose `main` succeeded becomes `Failed` with the first
  stopped sidecar's message (WPC-KILL-001);
- `stopped-sidecar-message`: a node whose `main` failed next to a sidecar takes the first
  stopped sidecar's message instead of `main`'s, still `Failed` (WPC-KILL-004).

Without one of these faults `misreport` changes nothing.
"""

from __future__ import annotations

from typing import Any

from reference_impl import common
from reference_impl.controller.faults import Fault
from reference_impl.controller.templates.nodes import inference

Json = dict[str, Any]

STOP_CODES = (137, 143)
"""Exit codes of a container ended by SIGKILL or SIGTERM."""
_NOT_SIDECARS = frozenset({common.MAIN, common.INIT, common.WAIT, common.SUPERVISOR})


def stopped_sidecar_message(pod: Json) -> str | None:
    """The node message of the pod's first sidecar a stop signal ended, else None."""
    for container in (pod.get("status") or {}).get("containerStatuses") or []:
        name = str(container.get("name", ""))
        terminated = (container.get("state") or {}).get("terminated")
        if name in _NOT_SIDECARS or terminated is None:
            continue
        if int(terminated.get("exitCode", 0)) in STOP_CODES:
            return inference.container_message(name, terminated)
    return None


def misreport(fault: Fault | None, pod: Json, node: Json) -> None:
    """Apply `sidecar-stop-fails-node` or `stopped-sidecar-message` to an assessed node."""
    if fault is Fault.SIDECAR_STOP_FAILS_NODE and node.get("phase") == "Succeeded":
        message = stopped_sidecar_message(pod)
        if message is not None:
            node["phase"], node["message"] = "Failed", message
    elif (
        fault is Fault.STOPPED_SIDECAR_MESSAGE
        and node.get("phase") == "Failed"
        and str(node.get("message", "")).startswith(f"{common.MAIN}: ")
    ):
        message = stopped_sidecar_message(pod)
        if message is not None:
            node["message"] = message
