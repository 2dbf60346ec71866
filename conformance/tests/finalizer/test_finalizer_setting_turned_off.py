"""FinalizerSettingTurnedOff: pods keep being released after the setting goes off.

We test these aspects on a dedicated controller instance: two pods are
created with the status finalizer, then the instance is restarted with
`ARGO_POD_STATUS_CAPTURE_FINALIZER` off. `released` then completes and must
lose the finalizer within the cleanup timeout; the Workflow is then deleted
and `running`'s pod must be gone within the grace period plus the cleanup
timeout (WPC-FINALIZER-009, a SHOULD that Argo v4.1.x is expected to fail,
OQ-2).

Matrix: legacy and initless.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.workload.workflows import named_node
from conformance.harness.workload.workflows import step_pods

GRACE = 5


def _finalizers(kube_clients: kube.Clients, namespace: str, workflow: str) -> list[str]:
    pod = step_pods(kube_clients, namespace, workflow)["released"]
    return list(pod.metadata.finalizers or [])


@pytest.mark.conformance(
    short_name="FinalizerSettingTurnedOff", clauses=["WPC-FINALIZER-009"]
)
def test_pods_created_with_the_finalizer_lose_it_after_the_setting_is_turned_off(
    dedicated_instance, workflows, manifest, kube_clients, namespace, timeouts, shell
):
    dedicated_instance.set_status_finalizer(enabled=True)
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    poll = {"interval": timeouts.poll_interval}
    name = own.submit(manifest())

    def both() -> dict[str, Any] | NotYet:
        found = step_pods(kube_clients, namespace, name)
        return found if len(found) == 2 else NotYet(sorted(found))

    pods = until(
        both, timeout=timeouts.pod_created, describe=f"the pods of {name}", **poll
    )
    for pod in pods.values():
        shell.wait_started(pod.metadata.name)
        assert contract.STATUS_FINALIZER in (pod.metadata.finalizers or []), (
            pod.metadata
        )

    dedicated_instance.set_status_finalizer(enabled=False)
    shell.release(pods["released"].metadata.name)
    until(
        lambda: (
            (node := named_node(own.get(name), "released")).get("phase")
            in contract.COMPLETED
            or NotYet(node)
        ),
        timeout=timeouts.workflow_completed,
        describe="the node of the released pod to complete",
        **poll,
    )
    until(
        lambda: (
            contract.STATUS_FINALIZER
            not in (found := _finalizers(kube_clients, namespace, name))
            or NotYet(found)
        ),
        timeout=timeouts.cleanup,
        describe="the completed pod to lose the status finalizer",
        **poll,
    )

    kube_clients.custom.delete_namespaced_custom_object(
        contract.WORKFLOW_GROUP, contract.WORKFLOW_VERSION, namespace, "workflows", name
    )
    until(
        lambda: (
            not (left := sorted(step_pods(kube_clients, namespace, name)))
            or NotYet(f"still there: {left}")
        ),
        timeout=GRACE + timeouts.cleanup,
        describe=f"the pods of the deleted workflow {name} to be gone",
        **poll,
    )
