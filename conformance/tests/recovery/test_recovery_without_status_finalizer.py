"""RecoveryWithoutStatusFinalizer: deleted pods and controller downtime, no finalizer.

We test these aspects on a dedicated controller instance with the status
finalizer switched off (the switch is controller-wide and restarts the
controller, so a shared instance is not touched), and one workflow of three
parallel pods, while recording every version of its pods and of the Workflow:

- no version of any pod carries `workflows.argoproj.io/status`
  (WPC-FINALIZER-002);
- `deleted-live` is force-deleted while running: its node becomes `Error` with
  `pod deleted` (WPC-STATUS-007);
- with the controller stopped, `deleted-down` is force-deleted and
  `finish-down` is released and completes; after the start, `deleted-down` is
  `Error` with `pod deleted` and the workflow completes (WPC-RECOVERY-006), and
  `finish-down` is `Succeeded` with exit code "0" and its output parameter, as
  without downtime (WPC-RECOVERY-001);
- at most one pod ever existed per node (WPC-RECOVERY-002); after completion
  every remaining pod is labelled completed within the cleanup timeout
  (WPC-RECOVERY-003); when the controller's pod is then killed (deleted with
  grace period 0, found through the profile's selector) no completed phase
  and no Succeeded node changes (WPC-RECOVERY-009).

Matrix: legacy and initless.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster import watching
from conformance.harness.inspecting import recording
from conformance.harness.workload.workflows import assert_succeeded
from conformance.harness.workload.workflows import step_pods

STEPS = ("deleted-live", "deleted-down", "finish-down")


def _nodes(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    nodes = (workflow.get("status") or {}).get("nodes") or {}
    return {n["displayName"]: n for n in nodes.values()}


def _kill_controller(
    kube_clients: kube.Clients,
    controller_selector: Callable[[Any], str],
    instance: Any,
    timeouts: Any,
) -> None:
    """Delete the instance's controller pods at once; wait for a new one to be ready."""
    selector = controller_selector(instance)

    def pods() -> list[Any]:
        return list(
            kube_clients.core.list_namespaced_pod(
                instance.namespace, label_selector=selector
            ).items
        )

    killed = {p.metadata.uid for p in pods()}
    for pod in pods():
        kube_clients.core.delete_namespaced_pod(
            pod.metadata.name, instance.namespace, grace_period_seconds=0
        )

    def replaced() -> bool | NotYet:
        ready = [
            s.ready
            for p in pods()
            if p.metadata.uid not in killed
            for s in p.status.container_statuses or []
        ]
        return (bool(ready) and all(ready)) or NotYet(f"new pods ready: {ready}")

    until(
        replaced,
        timeout=timeouts.controller_ready,
        interval=timeouts.poll_interval,
        describe=f"a new controller pod in {instance.namespace}",
    )


def _phases(workflow: dict[str, Any]) -> dict[str, str]:
    phases = {name: str(n.get("phase")) for name, n in _nodes(workflow).items()}
    return {**phases, "<workflow>": str(workflow["status"].get("phase"))}


@pytest.mark.conformance(
    short_name="RecoveryWithoutStatusFinalizer",
    clauses=[
        "WPC-FINALIZER-002",
        "WPC-STATUS-007",
        "WPC-RECOVERY-001",
        "WPC-RECOVERY-002",
        "WPC-RECOVERY-003",
        "WPC-RECOVERY-006",
        "WPC-RECOVERY-009",
    ],
)
def test_pods_lost_without_the_finalizer_become_pod_deleted_and_downtime_loses_nothing(
    dedicated_instance, controller_selector, workflows, scene, observations, shell
):
    dedicated_instance.set_status_finalizer(enabled=False)
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    poll = {"interval": scene.timeouts.poll_interval}
    recorders = recording.pods_and_workflows(scene.clients, scene.namespace)
    with recorders as (pods, versions):
        name = own.submit(scene.manifest())
        started = until(
            lambda: (
                found
                if (found := step_pods(scene.clients, scene.namespace, name)).keys()
                == set(STEPS)
                else NotYet(sorted(found))
            ),
            timeout=scene.timeouts.pod_created,
            describe=f"the three pods of {name}",
            **poll,
        )
        for pod in started.values():
            shell.wait_started(pod.metadata.name)

        # WPC-STATUS-007: a running pod force-deleted under a live controller.
        scene.clients.core.delete_namespaced_pod(
            started["deleted-live"].metadata.name,
            scene.namespace,
            grace_period_seconds=0,
        )
        until(
            lambda: (
                (node := _nodes(own.get(name))["deleted-live"])["phase"] == "Error"
                or NotYet(node)
            ),
            timeout=scene.timeouts.pod_deleted_reported,
            describe="node deleted-live to become Error",
            **poll,
        )

        # Downtime: one pod removed, one pod completing.
        dedicated_instance.stop()
        down = started["deleted-down"].metadata.name
        scene.clients.core.delete_namespaced_pod(
            down, scene.namespace, grace_period_seconds=0
        )
        finish = started["finish-down"].metadata.name
        shell.release(finish)
        until(
            lambda: (
                (
                    (
                        pod := scene.clients.core.read_namespaced_pod(
                            finish, scene.namespace
                        )
                    ).status.phase
                    in {"Succeeded", "Failed"}
                    and down not in step_pods(scene.clients, scene.namespace, name)
                )
                or NotYet(f"finish-down {pod.status.phase}")
            ),
            timeout=scene.timeouts.workflow_completed,
            describe="finish-down to complete and deleted-down to vanish while stopped",
            **poll,
        )
        dedicated_instance.start()

        workflow = own.wait_completed(name)
        observations.record_workflow(workflow)
        with watching.clause_limit("WPC-RECOVERY-003"):  # the cleanup timeout
            until(
                lambda: (
                    not (
                        left := [
                            s
                            for s, p in step_pods(
                                scene.clients, scene.namespace, name
                            ).items()
                            if (p.metadata.labels or {}).get(
                                "workflows.argoproj.io/completed"
                            )
                            != "true"
                        ]
                    )
                    or NotYet(f"not labelled completed: {left}")
                ),
                timeout=scene.timeouts.cleanup,
                describe=f"the pods of {name} to be labelled completed",
                **poll,
            )
        settled = _phases(workflow)
        _kill_controller(
            scene.clients,
            controller_selector,
            dedicated_instance.instance,
            scene.timeouts,
        )
        until(
            lambda: (now := _phases(own.get(name))) == settled or NotYet(now),
            timeout=scene.timeouts.cleanup,
            describe="the phases to stay as they were before the restart",
            consecutive=5,
            **poll,
        )

    nodes = _nodes(workflow)
    for step, clause in (
        ("deleted-live", "WPC-STATUS-007"),
        ("deleted-down", "WPC-RECOVERY-006"),
    ):
        verdict = (nodes[step]["phase"], nodes[step].get("message"))
        assert verdict == ("Error", "pod deleted"), f"{clause}: {step}: {verdict}"
    assert_succeeded(
        nodes["finish-down"], parameters=[("answer", "42")], clause="WPC-RECOVERY-001"
    )
    assert workflow["status"]["phase"] in {"Failed", "Error"}, (
        f"WPC-RECOVERY-006: workflow {workflow['status']['phase']}"
    )

    events = pods.events()
    with_finalizer = {
        e.obj["metadata"]["name"]
        for e in events
        if contract.STATUS_FINALIZER in (e.obj["metadata"].get("finalizers") or [])
    }
    assert not with_finalizer, (
        f"WPC-FINALIZER-002: pods carrying {contract.STATUS_FINALIZER}: {with_finalizer}"
    )
    duplicates = {
        n: u for n, u in recording.pods_by_node(events, name).items() if len(u) > 1
    }
    assert not duplicates, (
        f"WPC-RECOVERY-002: nodes with more than one pod: {duplicates}"
    )
    regressions = recording.phase_regressions(versions.events(), name)
    assert not regressions, "WPC-RECOVERY-009: " + "\n".join(regressions)
