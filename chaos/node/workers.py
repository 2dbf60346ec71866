"""Whole-worker faults: a worker frozen, drained or deleted while a step runs on it.

The step's node is found by `chaos.node.placement.step_runs_on_a_free_worker`
(memo `node:<step>`). Freezing and removing a node container need the
provider's `WorkerFaults` capability (`clusters.faults.workers_of`: kind);
cordon, eviction and deleting the Node object go through the API, so a drain
needs only a second schedulable node. Each fault registers its undo with the
session, so the control lifts it even when no rollback runs; a deleted worker
cannot come back (see chaos/experiments/README.md).
"""

from __future__ import annotations

import logging
from typing import Any

from kubernetes import client

from chaos import requirements
from chaos import sessions
from chaos.activities import activity
from chaos.errors import Unsupported
from chaos.node import placement
from clusters import faults
from clusters.base import WorkerFaults
from conformance.harness import NotYet

logger = logging.getLogger(__name__)

__all__ = [
    "delete_step_node",
    "drain_step_node",
    "freeze_step_node",
    "thaw_step_node",
    "uncordon_step_node",
]

FROZEN = "worker frozen"
CORDONED = "worker cordoned"
DELETED = "worker deleted"
READY_AGAIN_SECONDS = 120.0
"""How long a thawed worker may take to report Ready again."""


def _workers(session: sessions.Session) -> WorkerFaults:
    provider = session.settings.provider
    return requirements.capability(
        faults.workers_of(provider), provider=provider, cannot="take a worker node away"
    )


@activity
def freeze_step_node(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Freeze the worker the step's pod runs on (`docker pause` of its container)."""
    session = sessions.current(configuration)
    node = placement.step_node(session, step)
    workers = _workers(session)
    cluster = session.settings.cluster
    evidence = workers.freeze(cluster, node)
    session.fault_began(FROZEN, restore=lambda: workers.thaw(cluster, node))
    return evidence


@activity
def thaw_step_node(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Thaw the frozen worker (idempotent) and wait until its Node is Ready again."""
    session = sessions.current(configuration)
    node = session.memo.get(placement.node_key(step))
    if node is None:
        return "no worker was frozen"
    evidence = _workers(session).thaw(session.settings.cluster, node)
    session.fault_ended(FROZEN)
    sessions.poll(
        session,
        lambda: _ready(session, node),
        timeout=READY_AGAIN_SECONDS * session.settings.timeout_scale,
        describe=f"node {node} to be Ready after the thaw",
    )
    return f"{evidence}; Node {node} Ready"


def _ready(session: sessions.Session, node: str) -> bool | NotYet:
    status = placement.ready_status(session, node)
    return True if status == "True" else NotYet(f"{node} Ready={status}")


@activity
def drain_step_node(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Cordon the step's worker, then evict the experiment's pods on it (Eviction API).

    Only the experiment namespace's pods are evicted: the chaos controller and
    the cluster's own pods on the node are not the fault under test. The
    injection is the Node's `spec.unschedulable` read back and the evictions
    the API accepted.
    """
    session = sessions.current(configuration)
    node = placement.step_node(session, step)
    core = session.clients.core
    core.patch_node(node, {"spec": {"unschedulable": True}})
    session.fault_began(CORDONED, restore=lambda: _uncordon(session, node))
    cordoned = bool(core.read_node(node).spec.unschedulable)
    pods = core.list_namespaced_pod(
        session.namespace, field_selector=f"spec.nodeName={node}"
    ).items
    evicted = []
    for pod in pods:
        core.create_namespaced_pod_eviction(
            pod.metadata.name,
            session.namespace,
            client.V1Eviction(
                metadata=client.V1ObjectMeta(
                    name=pod.metadata.name, namespace=session.namespace
                )
            ),
        )
        evicted.append(f"{pod.metadata.name} ({pod.metadata.uid})")
    if not cordoned or not evicted:
        raise Unsupported(
            f"drain of {node} did not land: unschedulable={cordoned}, evicted {evicted}"
        )
    text = f"node {node} unschedulable; evicted {', '.join(evicted)}"
    session.injected("drain_step_node", text)
    return text


def _uncordon(session: sessions.Session, node: str) -> None:
    session.clients.core.patch_node(node, {"spec": {"unschedulable": False}})


@activity
def uncordon_step_node(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Make the drained worker schedulable again (idempotent)."""
    session = sessions.current(configuration)
    node = session.memo.get(placement.node_key(step))
    if node is None:
        return "no worker was cordoned"
    _uncordon(session, node)
    session.fault_ended(CORDONED)
    return f"node {node} schedulable"


@activity
def delete_step_node(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Remove the step's worker for good: its container, then its Node object.

    Nothing brings it back: the cluster keeps one worker fewer until it is
    made again (`python -m clusters down` and `up`).
    """
    session = sessions.current(configuration)
    node = placement.step_node(session, step)
    evidence = _workers(session).remove(session.settings.cluster, node)
    session.fault_began(DELETED)
    session.clients.core.delete_node(node)
    session.fault_ended(DELETED)
    logger.warning(
        "[%s] Worker %s deleted for good: the cluster has one worker fewer.",
        session.experiment,
        node,
    )
    return f"{evidence}; Node {node} deleted"
