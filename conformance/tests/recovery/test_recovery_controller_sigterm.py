"""RecoveryControllerSigterm: a controller stops on SIGTERM, not at its grace period.

We test this aspect on a dedicated controller instance (the test deletes its
pod): the suite deletes the controller pod gracefully, as a rollout, a drain or
`kubectl scale --replicas=0` does, so the kubelet sends SIGTERM and sends
SIGKILL only at the end of `terminationGracePeriodSeconds`. The pod object must
be gone within the spec's bound plus the timing tolerance (WPC-RECOVERY-011).
A pod whose grace period is no longer than that limit gets a longer one first
(through its Deployment), so a controller killed at the end of it still fails.
A failure says how long the stop took, the grace period and the exit code the
recorder saw last (137: killed).

Upstream v4.1.0 ignored SIGTERM (argoproj/argo-workflows#15863): its pod was
gone only at the 30 s grace period; v4.1.2 stops in under a second.

Matrix: legacy and initless (one controller instance per layout).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.inspecting import recording
from conformance.harness.instances import stopping
from conformance.harness.workload.pods import owning_deployment

logger = logging.getLogger(__name__)


def _ready_pod(clients: kube.Clients, namespace: str, selector: str) -> Any | NotYet:
    """The instance's one controller pod once it is ready and alone."""
    pods = clients.core.list_namespaced_pod(namespace, label_selector=selector).items
    ready = [
        p
        for p in pods
        if not p.metadata.deletion_timestamp
        and (statuses := p.status.container_statuses or [])
        and all(s.ready for s in statuses)
    ]
    if len(pods) == 1 and len(ready) == 1:
        return ready[0]
    return NotYet(
        [(p.metadata.name, bool(p.metadata.deletion_timestamp)) for p in pods]
    )


def _set_grace(clients: kube.Clients, namespace: str, pod: Any, seconds: int) -> None:
    """Give the Deployment that runs `pod` (through its ReplicaSet) a grace period."""
    from kubernetes import client

    deployment = owning_deployment(clients, namespace, pod)
    if deployment is None:
        raise HarnessError(
            f"controller pod {pod.metadata.name} has a grace period too short to tell a "
            f"stop from a kill, and is not run by a Deployment the suite could change"
        )
    apps: Any = client.AppsV1Api(clients.api)
    apps.patch_namespaced_deployment(
        deployment,
        namespace,
        {"spec": {"template": {"spec": {"terminationGracePeriodSeconds": seconds}}}},
    )


@pytest.mark.conformance(
    short_name="RecoveryControllerSigterm",
    clauses=["WPC-RECOVERY-011"],
)
def test_a_gracefully_deleted_controller_pod_is_gone_within_the_bound(
    dedicated_instance, controller_selector, kube_clients, timeouts
):
    instance = dedicated_instance.instance
    selector = controller_selector(instance)
    namespace = instance.namespace
    poll = {"interval": timeouts.poll_interval}

    def ready() -> Any | NotYet:
        return _ready_pod(kube_clients, namespace, selector)

    pod = until(
        ready,
        timeout=timeouts.controller_ready,
        describe="one ready controller pod",
        **poll,
    )
    limit = timeouts.controller_stopped + timeouts.timing_tolerance
    longer = stopping.grace_to_set(pod.spec.termination_grace_period_seconds, limit)
    if longer is not None:
        _set_grace(kube_clients, namespace, pod, longer)
        pod = until(
            lambda: (
                p
                if not isinstance(p := ready(), NotYet)
                and p.spec.termination_grace_period_seconds == longer
                else NotYet(f"a ready controller pod with a {longer} s grace period")
            ),
            timeout=timeouts.controller_ready,
            describe=f"the controller pod with a {longer} s grace period",
            **poll,
        )
    grace = float(pod.spec.termination_grace_period_seconds)
    uid = pod.metadata.uid

    def gone() -> bool | NotYet:
        pods = kube_clients.core.list_namespaced_pod(
            namespace, label_selector=selector
        ).items
        alive = [p.metadata.name for p in pods if p.metadata.uid == uid]
        return not alive or NotYet(f"{alive[0]} still exists")

    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        kube_clients.core.delete_namespaced_pod(pod.metadata.name, namespace)
        deleted = time.monotonic()
        until(
            gone,
            timeout=grace + limit + timeouts.api_call,
            describe=f"controller pod {pod.metadata.name} to be gone after SIGTERM",
            interval=min(timeouts.poll_interval, 0.25),
        )
        elapsed = time.monotonic() - deleted
    versions = [e.obj for e in recorder.events() if e.uid == uid]
    exit_code = stopping.last_exit_code(versions)
    logger.info(
        "[%s] Controller pod %s gone %.1f s after a graceful deletion "
        "(grace period %g s, last exit code %s).",
        namespace,
        pod.metadata.name,
        elapsed,
        grace,
        exit_code,
    )
    failure = stopping.judge(
        elapsed=elapsed,
        bound=timeouts.controller_stopped,
        tolerance=timeouts.timing_tolerance,
        grace_seconds=grace,
        exit_code=exit_code,
    )
    assert failure is None, f"WPC-RECOVERY-011: {failure}"
