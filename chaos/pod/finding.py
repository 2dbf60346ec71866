"""Find a step's pod and read its containers, as the pod activities need."""

from __future__ import annotations

import re
from typing import Any

from chaos.sessions import Session
from conformance import contract
from conformance.harness.workload import pods as pod_readers
from conformance.harness.workload.workflows import workflow_pods

RETRY_SUFFIX = re.compile(r"\(\d+\)$")
"""A retry attempt's node is `<step>(<n>)`; its pod belongs to the step."""
ON_EXIT = ".onExit"
"""A step's exit hook runs as node `<step node>.onExit` (Argo's naming)."""


def step_of_node(node: str) -> str:
    """The step a node name belongs to: its last part, retry suffix removed.

    An exit hook's node `...<step>.onExit` is step `<step>.onExit` (its display
    name), so experiments can name a hook apart from the step it hooks.
    """
    name = RETRY_SUFFIX.sub("", node)
    hooked = name.endswith(ON_EXIT)
    if hooked:
        name = name.removesuffix(ON_EXIT)
    step = name.rsplit(".", 1)[-1]
    return step + ON_EXIT if hooked else step


def step_of(pod: Any) -> str:
    """The step a pod runs (`step_of_node` of its node-name annotation)."""
    return step_of_node((pod.metadata.annotations or {}).get(contract.NODE_NAME, ""))


def step_pods(session: Session, workflow: str, step: str) -> list[Any]:
    """Every pod of `step` in the workflow submitted as `workflow`, oldest first."""
    found = [
        p
        for p in workflow_pods(
            session.clients, session.namespace, session.workflow(workflow)
        )
        if step_of(p) == step
    ]
    return sorted(found, key=lambda p: p.metadata.creation_timestamp)


def state(pod: Any, container: str) -> str:
    """`running`, `terminated <reason> <code>`, `waiting <reason>` or `absent`."""
    try:
        status = pod_readers.status_of(pod, container)
    except AssertionError:
        return "absent"
    current = status.state
    if current is None:
        return "unknown"
    if current.running:
        return "running"
    if current.terminated:
        done = current.terminated
        return f"terminated {done.reason} {done.exit_code}"
    if current.waiting:
        return f"waiting {current.waiting.reason}"
    return "unknown"


def container_id(pod: Any, container: str) -> str:
    """The runtime's id of a container (`containerd://<id>` -> `<id>`)."""
    status = pod_readers.status_of(pod, container)
    return str(status.container_id or "").split("://", 1)[-1]


def termination_message(pod: Any, container: str) -> str:
    """The container's termination message ("" when it has none or still runs)."""
    status = pod_readers.status_of(pod, container)
    done = status.state.terminated if status.state else None
    return str((done.message if done else "") or "")
