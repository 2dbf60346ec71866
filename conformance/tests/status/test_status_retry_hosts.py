"""StatusRetryHosts: a retry under `nodeAntiAffinity` is kept off the host its attempt failed on.

We test these aspects (WPC-STATUS-022), with `retryStrategy: {limit: 1,
retryPolicy: Always, affinity: {nodeAntiAffinity: {}}}` on a command that
always exits 1:

- attempt `(0)`'s pod has no required `kubernetes.io/hostname NotIn` term;
- once attempt `(0)` is `Failed` with its `hostNodeName`, attempt `(1)`'s pod
  requires `kubernetes.io/hostname NotIn` a list holding that host;
- where the scheduler placed attempt `(1)` (a cluster with another node), it is
  not on that host. On a single-node cluster attempt `(1)` stays `Pending`: no
  node is left, as upstream's retry does; the scenario does not wait for the
  workflow to end (its namespace's clean-up deletes it).

Upstream: `RetryOnDifferentHost` (`workflow/controller/retry_tweak.go`) with
`GetFailHosts` and `AddHostnamesToAffinity` (`workflow/util/retry/retry.go`).
The negative control `retry-on-failed-host` writes `In` for `NotIn`. The chaos
worker experiments (kind) see the same behaviour as the retry running on
another worker. Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube

NODE_ID = "workflows.argoproj.io/node-id"
HOST_LABEL = "kubernetes.io/hostname"


def host_terms(pod: Any) -> list[Any]:
    """The pod's required node-affinity expressions on the host label."""
    affinity = pod.spec.affinity
    node_affinity = affinity and affinity.node_affinity
    required = node_affinity and (
        node_affinity.required_during_scheduling_ignored_during_execution
    )
    terms = (required and required.node_selector_terms) or []
    return [
        e for t in terms for e in (t.match_expressions or []) if e.key == HOST_LABEL
    ]


def attempts(
    kube_clients: kube.Clients, workflows: Any, name: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The workflow's nodes by name, and its pods by node ID."""
    nodes = (workflows.get(name).get("status") or {}).get("nodes") or {}
    pods = kube_clients.core.list_namespaced_pod(
        workflows.namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    by_node = {str((p.metadata.annotations or {}).get(NODE_ID)): p for p in pods}
    return {n["name"]: n for n in nodes.values()}, by_node


@pytest.mark.conformance(short_name="StatusRetryHosts", clauses=["WPC-STATUS-022"])
def test_a_retry_is_kept_off_the_host_its_attempt_failed_on(
    workflows, manifest, kube_clients, timeouts
):
    name = workflows.submit(manifest())

    def retry_pod() -> tuple[dict[str, Any], Any, Any] | NotYet:
        nodes, pods = attempts(kube_clients, workflows, name)
        first, second = nodes.get(f"{name}(0)"), nodes.get(f"{name}(1)")
        if first is None or first.get("phase") != "Failed":
            return NotYet(f"attempt (0): {first and first.get('phase')}")
        if second is None or pods.get(second["id"]) is None:
            return NotYet(f"attempt (0) Failed; attempt (1) node {second is not None}")
        return first, pods.get(first["id"]), pods[second["id"]]

    first, first_pod, second_pod = until(
        retry_pod,
        interval=timeouts.poll_interval,
        timeout=timeouts.workflow_completed,
        describe="attempt (0) to fail and attempt (1) to get a pod",
    )
    host = first.get("hostNodeName")
    assert host, f"attempt (0) has no hostNodeName: {first}"
    if first_pod is not None:
        assert not host_terms(first_pod), (
            f"WPC-STATUS-022: attempt (0)'s pod already avoids hosts: "
            f"{host_terms(first_pod)}"
        )
    expressions = host_terms(second_pod)
    assert any(
        e.operator == "NotIn" and host in (e.values or []) for e in expressions
    ), (
        f"WPC-STATUS-022: attempt (1)'s pod {second_pod.metadata.name} does not "
        f"require {HOST_LABEL} NotIn [{host}]; its terms on that label: "
        f"{[(e.operator, e.values) for e in expressions]}"
    )
    placed = second_pod.spec.node_name
    assert placed != host, (
        f"WPC-STATUS-022: attempt (1) was scheduled on {placed}, the host attempt (0) "
        "failed on"
    )
