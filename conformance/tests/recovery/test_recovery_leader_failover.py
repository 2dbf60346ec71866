"""RecoveryLeaderFailover: with two replicas only the leader acts, and the other takes over.

We test these aspects on a dedicated controller instance whose Deployment the
suite scales to two replicas (found through the profile's controller pod
selector and the pods' owners): a three-step workflow runs while both replicas
are up; once its middle step runs, the suite deletes the leader's pod (the
holder of a `coordination.k8s.io` Lease in the instance's namespace, the
standard Kubernetes leader election Argo uses) and releases the step. The
workflow completes, and no node ever had two pods (WPC-RECOVERY-010, with
WPC-RECOVERY-002). The takeover time (leader deleted until the last step's
pod exists) is logged.

Matrix: legacy and initless.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any

import pytest

from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.inspecting import recording
from conformance.harness.workload.pods import owning_deployment
from conformance.harness.workload.workflows import step_pods

logger = logging.getLogger(__name__)
REPLICAS = 2


def _controller_pods(
    kube_clients: kube.Clients, namespace: str, selector: str
) -> list[Any]:
    pods = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=selector
    ).items
    return [p for p in pods if not p.metadata.deletion_timestamp]


def _scale(kube_clients: kube.Clients, namespace: str, pod: Any, replicas: int) -> None:
    """Scale the Deployment that owns `pod` (through its ReplicaSet)."""
    from kubernetes import client

    deployment = owning_deployment(kube_clients, namespace, pod)
    if deployment is None:
        raise HarnessError(
            f"controller pod {pod.metadata.name} is not run by a Deployment"
        )
    apps: Any = client.AppsV1Api(kube_clients.api)
    apps.patch_namespaced_deployment_scale(
        deployment, namespace, {"spec": {"replicas": replicas}}
    )


def _leader(
    kube_clients: kube.Clients, namespace: str, pods: list[Any]
) -> str | NotYet:
    from kubernetes import client

    names = {p.metadata.name for p in pods}
    leases: Any = client.CoordinationV1Api(kube_clients.api)
    holders = [
        lease.spec.holder_identity
        for lease in leases.list_namespaced_lease(namespace).items
    ]
    leaders = [h for h in holders if h in names]
    return (
        str(leaders[0])
        if len(leaders) == 1
        else NotYet(f"lease holders {holders}, pods {names}")
    )


@pytest.mark.conformance(
    short_name="RecoveryLeaderFailover",
    clauses=["WPC-RECOVERY-010", "WPC-RECOVERY-002"],
)
def test_only_the_leader_acts_and_the_other_replica_takes_over_when_it_dies(
    dedicated_instance, controller_selector, workflows, scene, shell
):
    instance = dedicated_instance.instance
    selector = controller_selector(instance)
    poll = {"interval": scene.timeouts.poll_interval}
    _scale(
        scene.clients,
        instance.namespace,
        _controller_pods(scene.clients, instance.namespace, selector)[0],
        REPLICAS,
    )

    def replicas_ready() -> list[Any] | NotYet:
        pods = _controller_pods(scene.clients, instance.namespace, selector)
        ready = [
            p
            for p in pods
            if (statuses := p.status.container_statuses or [])
            and all(s.ready for s in statuses)
        ]
        return (
            pods
            if len(ready) == REPLICAS == len(pods)
            else NotYet([p.metadata.name for p in ready])
        )

    controllers = until(
        replicas_ready,
        timeout=scene.timeouts.controller_ready,
        describe="two controller replicas",
        **poll,
    )
    own = dataclasses.replace(workflows, instance=instance)
    with recording.Recorder.pods(scene.clients, scene.namespace) as recorder:
        name = own.submit(scene.manifest())
        held = until(
            lambda: (
                step_pods(scene.clients, scene.namespace, name).get("held")
                or NotYet("no held pod")
            ),
            timeout=scene.timeouts.workflow_completed,
            describe=f"the pod of step held of {name}",
            **poll,
        ).metadata.name
        shell.wait_started(held)
        leader = until(
            lambda: _leader(scene.clients, instance.namespace, controllers),
            timeout=scene.timeouts.controller_ready,
            describe="one controller replica to hold the lease",
            **poll,
        )
        scene.clients.core.delete_namespaced_pod(
            leader, instance.namespace, grace_period_seconds=0
        )
        deleted_at = time.monotonic()
        shell.release(held)
        until(
            lambda: (
                "last" in step_pods(scene.clients, scene.namespace, name)
                or NotYet("no last pod")
            ),
            timeout=scene.timeouts.controller_ready,
            describe="the surviving replica to create the last step's pod",
            **poll,
        )
        logger.info(
            "[%s] Takeover after deleting leader %s: %.1f s.",
            scene.namespace,
            leader,
            time.monotonic() - deleted_at,
        )
        workflow = own.wait_completed(name)

    assert workflow["status"]["phase"] == "Succeeded", workflow["status"].get("message")
    duplicates = {
        n: u
        for n, u in recording.pods_by_node(recorder.events(), name).items()
        if len(u) > 1
    }
    assert not duplicates, f"nodes with more than one pod: {duplicates}"
