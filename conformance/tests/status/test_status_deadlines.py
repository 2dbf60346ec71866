"""StatusDeadlines: template and workflow deadlines end nodes as Failed.

We test these aspects:

- a template with `activeDeadlineSeconds: 2` running 60 s: the node becomes
  `Failed` with a message containing `Pod was active on the node longer than
  the specified deadline` (WPC-STATUS-012);
- a workflow with `activeDeadlineSeconds: 15` and two parallel 60 s steps, in
  a namespace whose ResourceQuota admits one pod, so one step runs and the
  other has no pod: the workflow becomes `Failed`, the running step's node
  `Failed`, the podless node `Failed` with `Step exceeded its deadline`, and
  no second pod is ever created (pods are recorded from before the
  submission), also over several observations after the workflow completed,
  when the quota would admit one (WPC-STATUS-013).

Keeping a node without a pod relies on the controller treating `exceeded
quota` as transient (the node stays `Pending`), as Argo does. Matrix: legacy
and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.inspecting import recording

KUBELET_DEADLINE = "Pod was active on the node longer than the specified deadline"
NODE_ID = "workflows.argoproj.io/node-id"
DEADLINE = 15
"""spec.activeDeadlineSeconds of status-deadlines-workflow.yaml."""


@pytest.mark.conformance(short_name="StatusDeadlines", clauses=["WPC-STATUS-012"])
def test_a_template_deadline_fails_the_node_with_the_kubelet_message(
    workflows, manifest, observations
):
    name = workflows.submit(manifest())

    workflow = workflows.wait_completed(name)
    node = workflow["status"]["nodes"][name]
    observations.record("node.phase", node["phase"])
    observations.record(
        "node.hasKubeletMessage", KUBELET_DEADLINE in node.get("message", "")
    )
    assert node["phase"] == "Failed", f"WPC-STATUS-012: {node}"
    assert KUBELET_DEADLINE in node.get("message", ""), (
        f"WPC-STATUS-012: node message {node.get('message')!r}"
    )


def one_pod_quota(
    kube_clients: Any, namespace: str, labels: dict[str, str], timeouts: Any
) -> None:
    """Admit at most one pod in the namespace; return once the quota is in force."""
    kube_clients.core.create_namespaced_resource_quota(
        namespace,
        {
            "metadata": {"name": "wpc-one-pod", "labels": labels},
            "spec": {"hard": {"pods": "1"}},
        },
    )

    def enforced() -> bool | NotYet:
        quota = kube_clients.core.read_namespaced_resource_quota(
            "wpc-one-pod", namespace
        )
        hard = (quota.status and quota.status.hard) or {}
        return hard.get("pods") == "1" or NotYet(f"quota status {quota.status}")

    until(
        enforced,
        timeout=timeouts.namespace_ready,
        interval=timeouts.poll_interval,
        describe="the one-pod ResourceQuota to be enforced",
    )


def pods_by_node(events: list[recording.Event]) -> dict[str, dict[str, Any]]:
    """node ID -> {pod uid -> last recorded version} over every recorded pod."""
    found: dict[str, dict[str, Any]] = {}
    for event in events:
        meta = event.obj["metadata"]
        node_id = (meta.get("annotations") or {}).get(NODE_ID, "")
        found.setdefault(node_id, {})[meta["uid"]] = event.obj
    return found


def main_ran(pod: dict[str, Any]) -> bool:
    """Whether main ever ran in this pod version (running or terminated)."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    state: dict[str, Any] = next(
        (s["state"] for s in statuses if s["name"] == "main"), {}
    )
    return "running" in state or "terminated" in state


@pytest.mark.conformance(short_name="StatusDeadlines", clauses=["WPC-STATUS-013"])
def test_a_workflow_deadline_fails_running_and_podless_nodes_and_creates_no_pod(
    workflows, manifest, kube_clients, namespace, test_labels, timeouts
):
    one_pod_quota(kube_clients, namespace, test_labels, timeouts)
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        name = workflows.submit(manifest("status-deadlines-workflow.yaml"))
        workflow = workflows.wait_completed(name)

        def settled() -> dict[str, dict[str, Any]] | NotYet:
            pods = pods_by_node(recorder.events())
            return pods if sum(map(len, pods.values())) == 1 else NotYet(pods.keys())

        # No pod may appear after completion either, when the quota admits one.
        pods = until(
            settled,
            timeout=timeouts.cleanup,
            interval=timeouts.poll_interval,
            consecutive=3,
            describe="the workflow to have had exactly one pod",
        )
    status = workflow["status"]
    steps = {
        n["displayName"]: n for n in status["nodes"].values() if n["type"] == "Pod"
    }
    ran = [
        n for n in steps.values() if any(map(main_ran, pods.get(n["id"], {}).values()))
    ]
    if not ran:
        raise HarnessError(f"no step's main started before the {DEADLINE} s deadline")
    assert status["phase"] == "Failed", (
        f"WPC-STATUS-013: workflow {status['phase']} {status.get('message')!r}"
    )
    assert sorted(steps) == ["a", "b"], f"WPC-STATUS-013: pod nodes {sorted(steps)}"
    for step, node in steps.items():
        if node in ran:
            assert node["phase"] == "Failed", (
                f"WPC-STATUS-013: running step {step}: {node}"
            )
        elif node["id"] not in pods:
            assert (node["phase"], node.get("message")) == (
                "Failed",
                "Step exceeded its deadline",
            ), f"WPC-STATUS-013: podless step {step}: {node.get('message')!r}"
