"""StatusPodPhases: a node follows its pod while the pod is Pending or Running.

We test these aspects (WPC-STATUS-001), with three workflows at once, each
compared with its pod as read in the same check:

- a pod no node can take (a nodeSelector nothing matches) and no waiting
  container: the node is `Pending` with `Unschedulable: <scheduler message>`;
- a pod whose main image is not on the node (pull policy `Never`): the node is
  `Pending` with `<Reason>: <Message>` of the first waiting container
  (`ErrImageNeverPull: ...`);
- a pod whose main runs (until the suite lets it finish): the node is
  `Running` while the pod is `Running`, in two observations in a row.

Matrix: legacy and initless.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster import watching
from conformance.harness.inspecting import executing

MISSING_IMAGE = "wpc.local/wpc-no-such-image:0.0.0"


def variant(base: dict[str, Any], name: str) -> dict[str, Any]:
    """The base workflow, unschedulable or with an image that is not on the node."""
    body = copy.deepcopy(base)
    template = body["spec"]["templates"][0]
    if name == "unschedulable":
        template["nodeSelector"] = {"wpc.dev/no-such-node": "true"}
    elif name == "missing-image":
        template["container"] |= {"image": MISSING_IMAGE, "imagePullPolicy": "Never"}
    return body


def pod_and_node(
    kube_clients: kube.Clients, workflows: Any, name: str
) -> tuple[Any, dict[str, Any]] | NotYet:
    """The workflow's only pod and its node, read one right after the other."""
    pods = kube_clients.core.list_namespaced_pod(
        workflows.namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    node = ((workflows.get(name).get("status") or {}).get("nodes") or {}).get(name)
    if len(pods) != 1 or node is None:
        return NotYet(f"{name}: {len(pods)} pods, node {node}")
    return pods[0], node


def expected_pending_message(pod: Any) -> str | None:
    """`<Reason>: <Message>` of the first waiting container, else Unschedulable."""
    for status in pod.status.container_statuses or []:
        waiting = status.state.waiting if status.state else None
        if waiting:
            return (
                f"{waiting.reason}: {waiting.message}"
                if waiting.message
                else waiting.reason
            )
    for condition in pod.status.conditions or []:
        if condition.type == "PodScheduled" and condition.reason == "Unschedulable":
            return f"Unschedulable: {condition.message}"
    return None


def matches(
    kube_clients: kube.Clients,
    workflows: Any,
    name: str,
    *,
    want: Callable[[Any, dict[str, Any]], bool],
) -> Callable[[], Any]:
    """A check: the pod and its node, when `want(pod, node)` holds."""

    def check() -> Any:
        found = pod_and_node(kube_clients, workflows, name)
        if isinstance(found, NotYet):
            return found
        pod, node = found
        seen = (
            f"pod {pod.status.phase} / node {node.get('phase')} {node.get('message')!r}"
        )
        return found if want(pod, node) else NotYet(seen)

    return check


@pytest.mark.conformance(short_name="StatusPodPhases", clauses=["WPC-STATUS-001"])
def test_the_node_is_pending_with_the_pods_reason_then_running(
    workflows, manifest, kube_clients, timeouts
):
    base = manifest()
    names = {
        v: workflows.submit(variant(base, v))
        for v in ("unschedulable", "missing-image", "running")
    }

    def pending(reason: str) -> Callable[[Any, dict[str, Any]], bool]:
        def want(pod: Any, node: dict[str, Any]) -> bool:
            message = expected_pending_message(pod) or ""
            return (
                pod.status.phase == "Pending"
                and message.startswith(reason)
                and (node.get("phase"), node.get("message")) == ("Pending", message)
            )

        return want

    for variant_name, reason in (
        ("unschedulable", "Unschedulable: "),
        ("missing-image", "ErrImageNeverPull"),
    ):
        # The pod stays Pending with its reason for good: a node that never shows
        # it within the pod-creation bound is the clause broken, not a slow cluster.
        with watching.clause_limit("WPC-STATUS-001"):
            until(
                matches(
                    kube_clients, workflows, names[variant_name], want=pending(reason)
                ),
                timeout=timeouts.pod_created,
                interval=timeouts.poll_interval,
                describe=f"the {variant_name} node to be Pending with the pod's reason",
            )

    def running(pod: Any, node: dict[str, Any]) -> bool:
        main = next(
            (s for s in pod.status.container_statuses or [] if s.name == "main"), None
        )
        return (
            bool(main and main.state.running)
            and pod.status.phase == "Running"
            and node.get("phase") == "Running"
        )

    pod, _ = until(
        matches(kube_clients, workflows, names["running"], want=running),
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        consecutive=2,
        describe="the running node to be Running while main runs",
    )
    executing.run(
        kube_clients,
        namespace=workflows.namespace,
        pod=pod.metadata.name,
        container="main",
        command=["touch", "/tmp/go"],
        timeout=timeouts.api_call,
    )
    assert workflows.wait_completed(names["running"])["status"]["phase"] == "Succeeded"
