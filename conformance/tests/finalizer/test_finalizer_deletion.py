"""FinalizerDeletion: deleted pods and deleted Workflows with the status finalizer.

We test these aspects, each on a private controller instance of the layout
with the status-capture finalizer switched on (switching it on the shared
instance restarted that controller under the tests running beside: upstream
lost the pod GC it had queued in memory, issue 29), and a workflow `first` ->
`held`, where `held`'s main traps SIGTERM, records it and exits 3 (grace
period 5 s):

- a user deletes `held`'s running pod: it stays readable until the controller
  has recorded the node from the container statuses (checked by reading the
  Workflow the moment the finalizer goes), the node is `Failed` with `main:
  Error (exit code 3)...`, never `pod deleted`, and the pod is gone within the
  cleanup timeout (WPC-FINALIZER-005);
- a user deletes the Workflow while `held` runs: every pod of it (the
  completed `first` and the running `held`) is gone within the grace period
  plus the cleanup timeout (WPC-FINALIZER-006).

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
from conformance.harness.cluster import watching
from conformance.harness.workload.workflows import workflow_pods

GRACE = 5
NODE_ID = "workflows.argoproj.io/node-id"
NOT_FOUND = 404


def _started_held_pod(shell: Any, workflow: str) -> Any:
    kube_clients, namespace, timeouts = shell.clients, shell.namespace, shell.timeouts
    pod = until(
        lambda: (
            next(
                (
                    p
                    for p in workflow_pods(kube_clients, namespace, workflow)
                    if p.metadata.annotations[contract.NODE_NAME].endswith(".held")
                ),
                None,
            )
            or NotYet("no pod for step held yet")
        ),
        timeout=timeouts.workflow_completed,
        interval=timeouts.poll_interval,
        describe=f"the pod of step held of {workflow}",
    )
    shell.wait_started(pod.metadata.name)
    assert contract.STATUS_FINALIZER in (pod.metadata.finalizers or []), (
        f"{pod.metadata.name} was created without {contract.STATUS_FINALIZER}: "
        f"{pod.metadata.finalizers}"
    )
    return pod


def _exists(kube_clients: kube.Clients, namespace: str, pod: str) -> bool:
    from kubernetes.client.exceptions import ApiException

    try:
        kube_clients.core.read_namespaced_pod(pod, namespace)
    except ApiException as exc:
        if exc.status == NOT_FOUND:
            return False
        raise
    return True


@pytest.mark.conformance(short_name="FinalizerDeletion", clauses=["WPC-FINALIZER-005"])
def test_a_deleted_running_pod_is_recorded_from_its_containers_not_as_pod_deleted(
    workflows, manifest, kube_clients, namespace, dedicated_instance, timeouts, shell
):
    dedicated_instance.set_status_finalizer(enabled=True)
    workflows = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    name = workflows.submit(manifest())
    pod = _started_held_pod(shell, name)
    node_id = pod.metadata.annotations[NODE_ID]

    kube_clients.core.delete_namespaced_pod(pod.metadata.name, namespace)

    def released(version: Any) -> dict[str, Any] | NotYet:
        # A DELETED event carries the version from before the finalizer went,
        # so a version still holding it is only believed while the pod exists.
        held = contract.STATUS_FINALIZER in (version.metadata.finalizers or [])
        if held and _exists(kube_clients, namespace, pod.metadata.name):
            return NotYet(f"still held: {version.metadata.finalizers}")
        # The finalizer just went: the node must already be recorded.
        return dict(workflows.get(name)["status"]["nodes"][node_id])

    with watching.clause_limit("WPC-FINALIZER-005"):  # grace + cleanup timeout
        node = watching.watch_until(
            kube_clients.core.list_namespaced_pod,
            namespace,
            check=released,
            timeout=GRACE + timeouts.cleanup,
            describe=f"the controller to release the deleted pod {pod.metadata.name}",
            field_selector=f"metadata.name={pod.metadata.name}",
        )
    assert node["phase"] in contract.COMPLETED, (
        f"finalizer removed while the node was {node}"
    )
    assert node.get("message") != "pod deleted"
    assert (node["phase"], node.get("message", "")[:25]) == (
        "Failed",
        "main: Error (exit code 3)",
    ), f"node {node['phase']} {node.get('message')!r}"

    until(
        lambda: (
            pod.metadata.name
            not in {
                p.metadata.name for p in workflow_pods(kube_clients, namespace, name)
            }
            or NotYet("the deleted pod still exists")
        ),
        timeout=timeouts.cleanup,
        interval=timeouts.poll_interval,
        describe=f"the deleted pod {pod.metadata.name} to disappear",
    )
    final = workflows.wait_completed(name)
    assert final["status"]["nodes"][node_id]["phase"] == "Failed"


@pytest.mark.conformance(short_name="FinalizerDeletion", clauses=["WPC-FINALIZER-006"])
def test_deleting_a_workflow_releases_and_removes_all_of_its_pods(
    workflows, manifest, kube_clients, namespace, dedicated_instance, timeouts, shell
):
    dedicated_instance.set_status_finalizer(enabled=True)
    workflows = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    name = workflows.submit(manifest())
    _started_held_pod(shell, name)

    kube_clients.custom.delete_namespaced_custom_object(
        contract.WORKFLOW_GROUP, contract.WORKFLOW_VERSION, namespace, "workflows", name
    )

    with watching.clause_limit("WPC-FINALIZER-006"):  # grace + cleanup timeout
        until(
            lambda: (
                not (
                    left := {
                        p.metadata.name: p.metadata.finalizers
                        for p in workflow_pods(kube_clients, namespace, name)
                    }
                )
                or NotYet(left)
            ),
            timeout=GRACE + timeouts.cleanup,
            interval=timeouts.poll_interval,
            describe=f"every pod of the deleted workflow {name} to be gone",
        )
