"""Where a step's pod runs, and what became of that node: the multi-node probes.

`step_runs_on_a_free_worker` is the vulnerable state of every worker fault: the
step's pod runs on a worker that the chaos controller does not share (taking
the controller's node away would be a second fault), and another schedulable
node is left for the retry. It records the node as memo `node:<step>`.
"""

from __future__ import annotations

from typing import Any

from kubernetes.client.exceptions import ApiException

from chaos import sessions
from chaos.activities import activity
from chaos.controller import pods as controller_pods
from chaos.errors import Inconclusive
from chaos.errors import SessionError
from chaos.errors import Unexpected
from chaos.errors import Unsupported
from chaos.pod import finding
from chaos.pod import polling
from chaos.workflow.probes import pod_nodes_of
from chaos.workflow.probes import summary
from conformance.harness import NotYet

__all__ = [
    "node_is_gone",
    "node_is_not_ready",
    "pod_is_evicted",
    "retry_ran_elsewhere",
    "step_runs_on_a_free_worker",
]

CONTROL_PLANE = "node-role.kubernetes.io/control-plane"
NOT_READY_SECONDS = 90.0
"""A silent node is NotReady after the grace period (20 s on kind) plus a
monitor period (5 s); the rest is slack for a loaded machine."""
GONE_SECONDS = 150.0
"""Pod GC deletes the pods of a deleted Node after a 40 s quarantine, checked every 20 s."""


def node_key(step: str) -> str:
    """Memo key of the node the step's first pod ran on."""
    return f"node:{step}"


def step_node(session: sessions.Session, step: str) -> str:
    """The node `step_runs_on_a_free_worker` recorded."""
    node = session.memo.get(node_key(step))
    if node is None:
        raise SessionError(
            f"no node recorded for step {step} (step_runs_on_a_free_worker)"
        )
    return str(node)


def ready_status(session: sessions.Session, node: str) -> str:
    """The Node's Ready condition status (`True`, `False`, `Unknown`), or `absent`."""
    try:
        found = session.clients.core.read_node(node)
    except ApiException as exc:
        if exc.status == 404:
            return "absent"
        raise
    for condition in found.status.conditions or []:
        if condition.type == "Ready":
            return str(condition.status)
    return "Unknown"


@activity
def step_runs_on_a_free_worker(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """The step's live pod runs on a worker without the controller, with a node to spare."""
    session = sessions.current(configuration)
    pods = [
        p
        for p in finding.step_pods(session, workflow, step)
        if not p.metadata.deletion_timestamp
    ]
    if not pods or not pods[-1].spec.node_name:
        raise Unexpected(f"step {step} has no scheduled pod")
    pod = pods[-1]
    node = str(pod.spec.node_name)
    nodes = session.clients.core.list_node().items
    labels = {n.metadata.name: n.metadata.labels or {} for n in nodes}
    if CONTROL_PLANE in labels.get(node, {}):
        raise Unsupported(
            f"{pod.metadata.name} runs on {node}, a control-plane node: "
            "worker faults need a cluster with workers"
        )
    spare = [
        n.metadata.name
        for n in nodes
        if n.metadata.name != node and not n.spec.unschedulable
    ]
    if not spare:
        raise Unsupported(f"no node but {node} to run a retry on")
    shared = [
        p.metadata.name
        for p in controller_pods.listed(session)
        if p.spec.node_name == node
    ]
    if shared:
        raise Inconclusive(f"the controller pod {shared} shares {node} with the step")
    session.memo[node_key(step)] = node
    text = (
        f"{pod.metadata.name} ({pod.metadata.uid}) runs on worker {node}; "
        f"controller elsewhere; spare nodes {spare}"
    )
    session.was_vulnerable("step_runs_on_a_free_worker", text)
    return text


@activity
def node_is_not_ready(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Wait until the step's node is not Ready (its kubelet went silent); record it."""
    session = sessions.current(configuration)
    node = step_node(session, step)

    def silent() -> str | NotYet:
        status = ready_status(session, node)
        return status if status != "True" else NotYet(f"{node} still Ready")

    status = sessions.poll(
        session,
        silent,
        timeout=NOT_READY_SECONDS * session.settings.timeout_scale,
        describe=f"node {node} to be NotReady",
    )
    taints = session.clients.core.read_node(node).spec.taints or []
    text = (
        f"node {node} Ready={status}; taints {[f'{t.key}:{t.effect}' for t in taints]}"
    )
    session.injected("node_is_not_ready", text)
    return text


@activity
def pod_is_evicted(step: str, configuration: dict[str, Any] | None = None) -> str:
    """Wait until the step's pod on the faulted node is being deleted, or gone."""
    session = sessions.current(configuration)
    name, uid = polling.remembered(session, step)

    def evicted() -> str | NotYet:
        pod = polling.read(session, name)
        if pod is None or pod.metadata.uid != uid:
            return f"pod {name} ({uid}) is gone"
        if pod.metadata.deletion_timestamp:
            return f"pod {name} ({uid}) deleted at {pod.metadata.deletion_timestamp}"
        return NotYet(f"{name}: phase {pod.status.phase}, not deleted")

    text = sessions.poll(
        session,
        evicted,
        timeout=NOT_READY_SECONDS * session.settings.timeout_scale,
        describe=f"pod {name} to be evicted from its node",
    )
    session.injected("pod_is_evicted", text)
    return text


@activity
def node_is_gone(step: str, configuration: dict[str, Any] | None = None) -> str:
    """The step's node has no Node object, and its pod was deleted with it."""
    session = sessions.current(configuration)
    node = step_node(session, step)
    name, uid = polling.remembered(session, step)

    def gone() -> str | NotYet:
        if ready_status(session, node) != "absent":
            return NotYet(f"Node {node} still exists")
        pod = polling.read(session, name)
        if pod is None:
            return "gone"
        if pod.metadata.uid != uid or pod.metadata.deletion_timestamp:
            return "deleted"
        return NotYet(f"pod {name} still on the deleted node, phase {pod.status.phase}")

    seen = sessions.poll(
        session,
        gone,
        timeout=GONE_SECONDS * session.settings.timeout_scale,
        describe=f"node {node} and pod {name} to be gone",
    )
    text = f"Node {node} absent; pod {name} ({uid}) {seen}"
    session.injected("node_is_gone", text)
    return text


@activity
def retry_ran_elsewhere(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """The step's first attempt ran on the faulted node, its last on another one.

    Read from the Pod nodes' `hostNodeName`: what the controller recorded.
    """
    session = sessions.current(configuration)
    node = step_node(session, step)
    current = session.workflow_ops().get(session.workflow(workflow))
    attempts = pod_nodes_of(current, step)
    hosts = [str(a.get("hostNodeName") or "") for a in attempts]
    if len(hosts) < 2 or hosts[0] != node or hosts[-1] in ("", node):
        raise Unexpected(
            f"step {step}: attempts ran on {hosts}, expected the first on {node} "
            f"and the last elsewhere: {summary(current)}"
        )
    return f"step {step}: attempts on {hosts}"
