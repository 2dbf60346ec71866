"""StatusPodDeletion: what a node becomes when its pod disappears.

We test these aspects, in one workflow of two parallel steps:

- `running`: once the node is `Running` and main runs, the suite removes any
  status finalizer from the pod and deletes it with grace period 0; the node
  becomes `Error` with `pod deleted` (WPC-STATUS-007);
- `pending`: its pod mounts a ConfigMap that does not exist yet, so pod and
  node stay `Pending`; the suite deletes that pod the same way; the controller
  creates a new pod for the node (new uid, same node-id annotation), and once
  the suite creates the ConfigMap the node completes `Succeeded`
  (WPC-STATUS-008).

Matrix: legacy and initless.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster import watching
from conformance.harness.stage import namespaces

NODE_ID = "workflows.argoproj.io/node-id"


def step_state(
    kube_clients: kube.Clients, workflows: Any, name: str, step: str
) -> tuple[Any, dict[str, Any]] | NotYet:
    """The step's pod (None when it has none) and node, read together."""
    nodes = (workflows.get(name).get("status") or {}).get("nodes") or {}
    node = next((n for n in nodes.values() if n.get("displayName") == step), None)
    if node is None:
        return NotYet(f"no node for step {step} yet")
    pods = kube_clients.core.list_namespaced_pod(
        workflows.namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    mine = [
        p for p in pods if (p.metadata.annotations or {}).get(NODE_ID) == node["id"]
    ]
    return (mine[0] if len(mine) == 1 else None), node


def wait_for(
    kube_clients: kube.Clients,
    workflows: Any,
    name: str,
    step: str,
    want: Callable[[Any, dict[str, Any]], bool],
    **kw: Any,
) -> tuple[Any, dict[str, Any]]:
    """Wait until `want(pod, node)` holds for the step."""

    def check() -> Any:
        found = step_state(kube_clients, workflows, name, step)
        if isinstance(found, NotYet):
            return found
        pod, node = found
        seen = f"pod {pod and (pod.metadata.uid, pod.status.phase)} node {node.get('phase')} {node.get('message')!r}"
        return found if want(*found) else NotYet(seen)

    found: tuple[Any, dict[str, Any]] = until(check, **kw)
    return found


def delete_now(kube_clients: kube.Clients, namespace: str, pod: Any) -> None:
    """Strip the status finalizer, then delete the pod with grace period 0."""
    namespaces.strip_status_finalizers(kube_clients, namespace)
    kube_clients.core.delete_namespaced_pod(
        pod.metadata.name, namespace, grace_period_seconds=0
    )


@pytest.mark.conformance(
    short_name="StatusPodDeletion", clauses=["WPC-STATUS-007", "WPC-STATUS-008"]
)
def test_a_deleted_running_pod_errors_its_node_and_a_deleted_pending_pod_is_recreated(
    workflows, manifest, kube_clients, namespace, test_labels, timeouts
):
    name = workflows.submit(manifest())

    def main_running(pod: Any, node: dict[str, Any]) -> bool:
        statuses = {
            s.name: s.state for s in (pod and pod.status.container_statuses) or []
        }
        return node.get("phase") == "Running" and bool(
            statuses.get("main") and statuses["main"].running
        )

    def pending(pod: Any, node: dict[str, Any]) -> bool:
        return (
            pod is not None
            and pod.status.phase == "Pending"
            and node.get("phase") == "Pending"
        )

    running_pod, _ = wait_for(
        kube_clients,
        workflows,
        name,
        "running",
        main_running,
        interval=timeouts.poll_interval,
        timeout=timeouts.user_command_started,
        describe="step running to run",
    )
    pending_pod, pending_node = wait_for(
        kube_clients,
        workflows,
        name,
        "pending",
        pending,
        interval=timeouts.poll_interval,
        timeout=timeouts.pod_created,
        consecutive=2,
        describe="step pending to stay Pending",
    )
    delete_now(kube_clients, namespace, running_pod)
    delete_now(kube_clients, namespace, pending_pod)

    # No new pod within the pod-creation bound: the controller did not make one
    # (it failed the node, or forgot it), which is the clause broken.
    with watching.clause_limit("WPC-STATUS-008"):
        wait_for(
            kube_clients,
            workflows,
            name,
            "pending",
            lambda pod, node: (
                pod is not None and pod.metadata.uid != pending_pod.metadata.uid
            ),
            interval=timeouts.poll_interval,
            timeout=timeouts.pod_created,
            describe="a new pod for the pending node",
        )
    kube_clients.core.create_namespaced_config_map(
        namespace,
        {
            "metadata": {"name": "wpc-gate", "labels": test_labels},
            "data": {"open": "yes"},
        },
    )
    # Judged once the workflow completed (every node final): a wrong phase or
    # message is then the implementation breaking the clause, not a timeout.
    workflow = workflows.wait_completed(name)
    nodes = {n["displayName"]: n for n in workflow["status"]["nodes"].values()}
    assert (nodes["running"]["phase"], nodes["running"].get("message")) == (
        "Error",
        "pod deleted",
    ), f"WPC-STATUS-007: the node whose running pod was deleted: {nodes['running']}"
    assert nodes["pending"]["phase"] == "Succeeded", (
        f"WPC-STATUS-008: the node whose pending pod was deleted: {nodes['pending']}"
    )
    assert nodes["pending"]["id"] == pending_node["id"], (
        f"WPC-STATUS-008: the pending node's ID: {nodes['pending']}"
    )
    pods = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    recreated = [
        p
        for p in pods
        if (p.metadata.annotations or {}).get(NODE_ID) == pending_node["id"]
    ]
    assert [p.metadata.uid != pending_pod.metadata.uid for p in recreated] == [True], (
        "WPC-STATUS-008: pods of the pending node: "
        f"{[(p.metadata.name, p.metadata.uid) for p in recreated]}"
    )
