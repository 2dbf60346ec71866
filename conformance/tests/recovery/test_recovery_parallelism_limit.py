"""RecoveryParallelismLimit: the controller's `parallelism` holds back new workflows, never Running ones.

We test these aspects on a dedicated controller instance (in the test's layout)
whose configuration starts without a limit, with workflows of one pod each,
whose command runs until the suite releases it (WPC-RECOVERY-012):

- `first` and `second` are submitted and both run; with the controller
  stopped, `second` loses its `workflows.argoproj.io/phase` label and the
  limit is set to 1 (`setConfig`); the controller starts, `second`'s pod is
  released, and `second` ends `Succeeded` within the cleanup timeout of its
  pod's end while `first` still runs;
- `third`, submitted then, is `Pending` with no pod while `first` runs; once
  `first` is released and has ended, `third` gets its pod, created no earlier
  than `first`'s `finishedAt`, and ends `Succeeded`.

Upstream seeds its throttler at start-up with the workflows labelled
`Running`. Before v3.7.1 (v3.6.11 on the 3.6 line), and again from v4.0.0 to
v4.0.8 and in v4.1.0-rc1, it postponed a `Running` workflow the throttler did
not hold like a new one, so `second` stayed `Running`, its pod done, until
`first` ended (argoproj/argo-workflows#14123; fixes 883b502d and a862e823).
Upstream lost such workflows when an archive attempt failed mid-flight; the
removed label is the black-box way to the same state.

Matrix: legacy and initless (the layout the instance runs in).
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import watching
from conformance.harness.inspecting import executing
from conformance.harness.stage import scenes
from conformance.harness.workload import pods
from conformance.harness.workload import workflows as workflow_ops

LIMIT = 1


def started_pod(
    scene: scenes.Scene,
    workflows: workflow_ops.Workflows,
    shell: executing.Shell,
    name: str,
) -> Any:
    """The one pod of `name`, once its held command runs."""

    def pod() -> Any:
        listed = workflow_ops.workflow_pods(scene.clients, scene.namespace, name)
        return (
            listed[0] if listed else NotYet(workflow_ops.summary(workflows.get(name)))
        )

    found = until(
        pod,
        timeout=scene.timeouts.pod_created,
        interval=scene.timeouts.poll_interval,
        describe=f"the pod of {name}",
    )
    shell.wait_started(found.metadata.name)
    return found


def pod_ended(scene: scenes.Scene, pod: str) -> None:
    """Wait until `main` of `pod` has terminated (after its release)."""
    until(
        lambda: pods.terminated(
            scene.clients.core.read_namespaced_pod(pod, scene.namespace), "main"
        ),
        timeout=scene.timeouts.workflow_completed,
        interval=scene.timeouts.poll_interval,
        describe=f"main of {scene.namespace}/{pod} to end after its release",
    )


def phase(workflows: workflow_ops.Workflows, name: str) -> str | None:
    """The workflow's status phase now."""
    return (workflows.get(name).get("status") or {}).get("phase")


@pytest.mark.conformance(
    short_name="RecoveryParallelismLimit", clauses=["WPC-RECOVERY-012"]
)
def test_the_limit_holds_back_new_workflows_and_never_a_running_one(
    dedicated_instance, workflows, scene, observations, shell
):
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    body = scene.manifest()
    first, second = own.submit(body), own.submit(body)
    first_pod = started_pod(scene, own, shell, first)
    second_pod = started_pod(scene, own, shell, second)

    dedicated_instance.stop()
    own.patch(second, {"metadata": {"labels": {contract.PHASE_LABEL: None}}})
    dedicated_instance.set_config("parallelism", LIMIT)
    dedicated_instance.start()

    shell.release(second_pod.metadata.name)
    pod_ended(scene, second_pod.metadata.name)
    with watching.clause_limit(
        "WPC-RECOVERY-012 (a Running workflow is reconciled whatever the limit)"
    ):
        done = own.wait_completed(second, timeout=scene.timeouts.cleanup)
    observations.record_workflow(done)
    assert done["status"]["phase"] == "Succeeded", (
        f"WPC-RECOVERY-012: {second}: {workflow_ops.summary(done)}"
    )
    assert phase(own, first) == "Running", (
        f"{first} is {phase(own, first)} before the suite released it: "
        "the limit was not reached, so the scenario cannot judge"
    )

    third = own.submit(body)

    def held_back() -> bool | NotYet:
        workflow = own.get(third)
        listed = workflow_ops.workflow_pods(scene.clients, scene.namespace, third)
        if listed:
            raise AssertionError(
                f"WPC-RECOVERY-012: {third} got pod {listed[0].metadata.name} while "
                f"{first} runs and the limit is {LIMIT}"
            )
        status = workflow.get("status") or {}
        return status.get("phase") == "Pending" or NotYet(
            workflow_ops.summary(workflow)
        )

    until(
        held_back,
        timeout=scene.timeouts.pod_created,
        interval=scene.timeouts.poll_interval,
        describe=f"WPC-RECOVERY-012: {third} to be Pending while {first} runs",
    )
    assert phase(own, first) == "Running", f"{first} ended before its release"

    shell.release(first_pod.metadata.name)
    ended = own.wait_completed(first)
    observations.record_workflow(ended)
    third_pod = started_pod(scene, own, shell, third)
    shell.release(third_pod.metadata.name)
    finished = own.wait_completed(third)
    observations.record_workflow(finished)
    assert finished["status"]["phase"] == "Succeeded", (
        f"WPC-RECOVERY-012: {third}: {workflow_ops.summary(finished)}"
    )
    freed = datetime.datetime.fromisoformat(ended["status"]["finishedAt"])
    created = third_pod.metadata.creation_timestamp
    assert created >= freed, (
        f"WPC-RECOVERY-012: {third}'s pod was created at {created}, before {first} "
        f"ended at {freed}"
    )
