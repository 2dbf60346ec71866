"""The one-pod workflow the benchmark submits, and the milestones a pod passes.

The workflow is plain Argo (one container template running `markers.SCRIPT`
in the profile's `tools` image), so every implementation runs the same thing;
the harness adds the run's labels and the layout instance's ID when it submits
it. The milestone readers work on the API's JSON (the watches keep objects as
plain JSON, so arrival is not delayed by model building).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance import contract
from wpc.bench import markers

Json = dict[str, Any]

SANDBOX_READY = "PodReadyToStartContainers"
"""The kubelet's condition: the sandbox and its network are up (Kubernetes >= 1.29)."""


def workflow(*, image: str, layout: str, labels: dict[str, str]) -> Json:
    """A one-pod workflow whose main container prints the markers and exits.

    Its pods carry `labels` too (`podMetadata`), so they are found, watched and
    audited by the run's labels like everything else it creates.
    """
    return {
        "apiVersion": contract.WORKFLOW_API_VERSION,
        "kind": "Workflow",
        "metadata": {"generateName": f"wpc-bench-{layout}-"},
        "spec": {
            "entrypoint": "main",
            "podMetadata": {"labels": dict(labels)},
            "templates": [
                {
                    "name": "main",
                    "container": {
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["sh", "-c"],
                        "args": [markers.SCRIPT],
                    },
                }
            ],
        },
    }


def condition_time(pod: Json, kind: str) -> str | None:
    """`lastTransitionTime` of condition `kind` while it is True, else None."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind and condition.get("status") == "True":
            stamp = condition.get("lastTransitionTime")
            return str(stamp) if stamp else None
    return None


def _statuses(pod: Json) -> list[Json]:
    status = pod.get("status") or {}
    return list(status.get("containerStatuses") or [])


def started_at(pod: Json, *names: str) -> str | None:
    """The earliest `startedAt` (running or terminated) of the named containers."""
    found = []
    for status in _statuses(pod):
        if status.get("name") not in names:
            continue
        state = status.get("state") or {}
        for key in ("running", "terminated"):
            stamp = (state.get(key) or {}).get("startedAt")
            if stamp:
                found.append(str(stamp))
    return min(found) if found else None


def finished_at(pod: Json, name: str) -> str | None:
    """`finishedAt` of container `name` once it terminated, else None."""
    for status in _statuses(pod):
        if status.get("name") == name:
            terminated = (status.get("state") or {}).get("terminated") or {}
            stamp = terminated.get("finishedAt")
            return str(stamp) if stamp else None
    return None


AUX = tuple(c for c in contract.EXECUTOR_CONTAINERS if c != "init")
"""The executor's containers that run beside main: `wait` (legacy), `supervisor`."""


def pod_node(workflow: Json) -> Json | None:
    """The workflow's one node of type Pod, if its status has exactly one."""
    nodes = ((workflow.get("status") or {}).get("nodes") or {}).values()
    found = [n for n in nodes if n.get("type") == "Pod"]
    return found[0] if len(found) == 1 else None


def node_done(workflow: Json) -> bool:
    """Whether the workflow's pod node has completed."""
    node = pod_node(workflow)
    return node is not None and node.get("phase") in contract.NODE_DONE


def node_finished_at(workflow: Json) -> str | None:
    """`finishedAt` of the pod node once the node is done, else None."""
    node = pod_node(workflow)
    if node is None or not node_done(workflow):
        return None
    stamp = node.get("finishedAt")
    return str(stamp) if stamp else None


POD_MILESTONES: dict[str, Callable[[Json], str | None]] = {
    "created": lambda pod: (pod.get("metadata") or {}).get("creationTimestamp"),
    "scheduled": lambda pod: condition_time(pod, "PodScheduled"),
    "sandbox_ready": lambda pod: condition_time(pod, SANDBOX_READY),
    "initialized": lambda pod: condition_time(pod, "Initialized"),
    "aux_started": lambda pod: started_at(pod, *AUX),
    "main_started": lambda pod: started_at(pod, contract.MAIN),
    "main_finished": lambda pod: finished_at(pod, contract.MAIN),
}
"""Milestone -> its API timestamp in a pod (None while not reached), in pod order."""

WRITTEN_IN_THE_WATCHED_REQUEST = frozenset({"created", "scheduled"})
"""Milestones the API server stamps in the very write the watch delivers (the
pod's creation, the binding's PodScheduled), so the arrival lags by one round
trip and the upper bound is tight (`moments.Moment.latest`). The kubelet's
stamps (its conditions, container states) reach the API through its status
manager after its next relist, up to a second or more later under load, so
they take the interval's midpoint (`moments.Moment.estimate`)."""


def reached(pod: Json) -> dict[str, str]:
    """The pod milestones this object shows as reached, with their API stamps.

    Taken at first sight: a condition such as PodReadyToStartContainers turns
    False again once the pod has completed, so the final pod may no longer
    carry its stamp.
    """
    found = {}
    for name, read in POD_MILESTONES.items():
        stamp = read(pod)
        if stamp:
            found[name] = str(stamp)
    return found


def pod_state(pod: Json) -> str:
    """`phase=Running containers=[init=terminated(Completed exit 0), main=running]`."""
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
