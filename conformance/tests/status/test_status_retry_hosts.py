"""StatusRetryHosts: a retry under `nodeAntiAffinity` is kept off the host its attempt failed on.

We test these aspects (WPC-STATUS-022), in one workflow of two parallel steps
whose commands always exit 1, each with `retryStrategy: {limit: 1,
retryPolicy: Always}`:

- `avoid` (`affinity: {nodeAntiAffinity: {}}`): attempt `(0)`'s pod has no
  required `kubernetes.io/hostname` term; once attempt `(0)` is `Failed` with
  its `hostNodeName`, attempt `(1)`'s pod requires `kubernetes.io/hostname
  NotIn` a list holding that host and, where the scheduler placed it (a cluster
  with another node), is not on that host. On a single-node cluster attempt
  `(1)` stays `Pending`: no node is left, as upstream's retry does; the
  scenario does not wait for the workflow to end (its namespace's clean-up
  deletes it);
- `stay` (`affinity: {}`, no `nodeAntiAffinity`): attempt `(1)`'s pod has no
  such term.

Upstream: `RetryOnDifferentHost` (`workflow/controller/retry_tweak.go`) with
`GetFailHosts` and `AddHostnamesToAffinity` (`workflow/util/retry/retry.go`).
Upstream bug this catches (conformance/spec/history.yaml,
retry-affinity-wrong-retry-node): before v4.0.0-rc1 and v3.7.1 the Retry node
of a step's attempt was looked up by its boundary's template name, so a retried
step inside a steps template got no term at all, and an `affinity` without
`nodeAntiAffinity` got one (fix 85e96a1f). The negative control
`retry-on-failed-host` writes `In` for `NotIn`. The chaos worker experiments
(kind) see the same behaviour as the retry running on another worker. Matrix:
legacy and initless.
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


def described(pod: Any) -> str:
    """The pod's name and its terms on the host label, for a failure message."""
    terms = [(e.operator, e.values) for e in host_terms(pod)]
    return f"{pod.metadata.name} (terms on {HOST_LABEL}: {terms})"


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
    steps = ("avoid", "stay")

    def retry_pods() -> dict[str, tuple[dict[str, Any], Any, Any]] | NotYet:
        nodes, pods = attempts(kube_clients, workflows, name)
        found = {}
        for step in steps:
            first = nodes.get(f"{name}[0].{step}(0)")
            second = nodes.get(f"{name}[0].{step}(1)")
            if first is None or first.get("phase") != "Failed":
                return NotYet(f"{step}(0): {first and first.get('phase')}")
            if second is None or pods.get(second["id"]) is None:
                return NotYet(f"{step}(0) Failed; {step}(1) has no pod yet")
            found[step] = (first, pods.get(first["id"]), pods[second["id"]])
        return found

    found = until(
        retry_pods,
        interval=timeouts.poll_interval,
        timeout=timeouts.workflow_completed,
        describe="each step's attempt (0) to fail and its attempt (1) to get a pod",
    )
    first, first_pod, second_pod = found["avoid"]
    host = first.get("hostNodeName")
    assert host, f"avoid(0) has no hostNodeName: {first}"
    if first_pod is not None:
        assert not host_terms(first_pod), (
            f"WPC-STATUS-022: avoid(0)'s pod already avoids hosts: {described(first_pod)}"
        )
    assert any(
        e.operator == "NotIn" and host in (e.values or [])
        for e in host_terms(second_pod)
    ), (
        f"WPC-STATUS-022: avoid(1)'s pod {described(second_pod)} does not require "
        f"{HOST_LABEL} NotIn [{host}], the host avoid(0) failed on"
    )
    placed = second_pod.spec.node_name
    assert placed != host, (
        f"WPC-STATUS-022: avoid(1) was scheduled on {placed}, the host avoid(0) "
        "failed on"
    )
    _, _, stay_pod = found["stay"]
    assert not host_terms(stay_pod), (
        f"WPC-STATUS-022: stay(1)'s pod avoids hosts though its retryStrategy has no "
        f"nodeAntiAffinity: {described(stay_pod)}"
    )
