"""StatusSyncLockShutdown: a shutdown does not wait for a synchronization lock.

We test these aspects, each with a `holder` workflow whose container keeps a
mutex until the suite releases it (the suite releases it also when the test
fails, and waits for the holder to end when it passes):

- a workflow `Pending` on the workflow-level mutex the holder runs under
  (`spec.synchronization`), then terminated, ends `Failed` with
  `Stopped with strategy 'Terminate'` while the holder still runs, with no node
  and no pod; once the holder has ended, a third workflow asking for the mutex
  gets it and succeeds (WPC-STATUS-018);
- two running workflows whose step `locked` waits for the template-level
  mutex the holder's container holds, one stopped and one terminated: each
  ends `Failed` with `Stopped with strategy '<S>'` while the holder still
  runs, `locked` ends `Failed`, and no waiting workflow ever gets a pod
  (WPC-STATUS-019).

A lock held many times over is released whole:

- a holder asking for three mutexes at workflow level, whose container template
  asks for three more, runs while six workflows, each asking for one of the six
  mutexes, wait `Pending`; once the holder has ended, each of the six gets its
  mutex and ends `Succeeded` (WPC-STATUS-026).

Pods are recorded from before the first submission. A failure names the
clause; a waiter that does not end at all fails when the completion timeout
passes, naming what it was still doing.

Upstream v4.1.1 and earlier ended the terminated `Pending` workflow
`Succeeded` with an empty message, and left the waiting step `Pending` in a
`Running` workflow until the lock was free; v4.1.2 behaves as above
(argoproj/argo-workflows#16776 and #16777, released as #16786 and #16787).
Before v3.7.0-rc1 a completed workflow holding three or more mutexes released
only some of them (with three, the second stayed held for as long as the
workflow existed), so the workflow waiting for it never ran
(multiple-mutexes-not-released, argoproj/argo-workflows#14461, fix e2ef918d).

Matrix: legacy and initless. The waiters never get a pod, so the layouts
should agree; the holder's pod is built in each layout and each layout's
controller instance keeps its own locks.
"""

from __future__ import annotations

import copy
import functools
import logging
from typing import Any

import pytest

from conformance import contract
from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import watching
from conformance.harness.inspecting import executing
from conformance.harness.inspecting import recording
from conformance.harness.stage import scenes
from conformance.harness.workload import workflows as workflow_ops

logger = logging.getLogger(__name__)

WORKFLOW_LOCK = "status-sync-lock-shutdown-workflow.yaml"
"""Workflow-level mutex; entrypoint `held` (keeps it) or `quick` (exits 0)."""
TEMPLATE_LOCK = "status-sync-lock-shutdown-template.yaml"
"""Template-level mutex; entrypoint `held` (keeps it) or `main` (step `locked` waits)."""
MANY_LOCKS = "status-sync-lock-shutdown-many.yaml"
"""Six mutexes: three at workflow level, three on template `held` (keeps them)."""
STRATEGIES = ("Stop", "Terminate")


def with_entrypoint(manifest: dict[str, Any], entrypoint: str) -> dict[str, Any]:
    """A copy of `manifest` that starts at template `entrypoint`."""
    body = copy.deepcopy(manifest)
    body["spec"]["entrypoint"] = entrypoint
    return body


def summary(workflow: dict[str, Any]) -> str:
    """Phase, message and node phases: what a wait reports when it times out."""
    status = workflow.get("status") or {}
    nodes = {
        n.get("displayName"): [n.get("phase"), n.get("message", "")]
        for n in (status.get("nodes") or {}).values()
    }
    return f"phase={status.get('phase')!r} message={status.get('message', '')!r} nodes={nodes}"


def start_holder(
    scene: scenes.Scene,
    workflows: workflow_ops.Workflows,
    shell: executing.Shell,
    manifest: dict[str, Any],
) -> tuple[str, str]:
    """Submit the holder and return (workflow, pod) once its held command runs.

    A pod of a workflow that asks for a lock means the workflow holds it.
    """
    name = workflows.submit(with_entrypoint(manifest, "held"))

    def pod() -> str | NotYet:
        pods = workflow_ops.workflow_pods(scene.clients, scene.namespace, name)
        return pods[0].metadata.name if pods else NotYet(summary(workflows.get(name)))

    pod_name = until(
        pod,
        timeout=scene.timeouts.pod_created,
        interval=scene.timeouts.poll_interval,
        describe=f"the pod of holder {name}",
    )
    shell.wait_started(pod_name)
    return name, pod_name


def let_go(shell: executing.Shell, pod: str) -> None:
    """Release the holder's command (cleanup: a failure is logged, not raised).

    Raising here would hide the test's own failure; the namespace, with
    everything in it, is deleted after the test anyway.
    """
    from kubernetes.client.exceptions import ApiException

    try:
        shell.release(pod)
    except (ApiException, HarnessError) as exc:
        logger.warning("could not release holder pod %s: %s", pod, exc)


def shut_down(scene: scenes.Scene, name: str, strategy: str) -> None:
    """Set `spec.shutdown`, as `argo stop` / `argo terminate` do."""
    scene.clients.custom.patch_namespaced_custom_object(
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        scene.namespace,
        contract.WORKFLOWS,
        name,
        {"spec": {"shutdown": strategy}},
    )


def ended(
    scene: scenes.Scene, workflows: workflow_ops.Workflows, name: str, describe: str
) -> dict[str, Any]:
    """The workflow once it is completed; a timeout fails with `describe`."""

    def check() -> dict[str, Any] | NotYet:
        workflow = workflows.get(name)
        phase = (workflow.get("status") or {}).get("phase")
        return workflow if phase in contract.COMPLETED else NotYet(summary(workflow))

    result: dict[str, Any] = until(
        check,
        timeout=scene.timeouts.workflow_completed,
        interval=scene.timeouts.poll_interval,
        describe=describe,
    )
    return result


def still_holding(workflows: workflow_ops.Workflows, holder: str) -> None:
    """HarnessError unless the holder still runs: only then is the lock held."""
    phase = (workflows.get(holder).get("status") or {}).get("phase")
    if phase != "Running":
        raise HarnessError(
            f"holder {holder} is {phase}, not Running, before the suite released it: "
            "the lock may have been free, so the scenario cannot judge the waiters"
        )


def pending_without_nodes(
    workflows: workflow_ops.Workflows, name: str
) -> bool | NotYet:
    """Whether the workflow is Pending with no node: waiting for its workflow-level lock."""
    workflow = workflows.get(name)
    status = workflow.get("status") or {}
    if status.get("phase") == "Pending" and not status.get("nodes"):
        return True
    return NotYet(summary(workflow))


def step_waits(
    scene: scenes.Scene, workflows: workflow_ops.Workflows, name: str
) -> bool | NotYet:
    """Whether the workflow runs, its step `locked` is Pending and it has no pod."""
    workflow = workflows.get(name)
    status = workflow.get("status") or {}
    locked = [
        n.get("phase")
        for n in (status.get("nodes") or {}).values()
        if n.get("displayName") == "locked"
    ]
    pods = workflow_ops.workflow_pods(scene.clients, scene.namespace, name)
    if status.get("phase") == "Running" and locked == ["Pending"] and not pods:
        return True
    return NotYet(f"{summary(workflow)}, pods {len(pods)}")


@pytest.mark.conformance(
    short_name="StatusSyncLockShutdown", clauses=["WPC-STATUS-018"]
)
def test_a_workflow_terminated_while_pending_on_its_lock_fails_and_leaves_the_queue(
    workflows, scene, shell, observations
):
    clause = "WPC-STATUS-018"
    body = scene.manifest(WORKFLOW_LOCK)
    wait = {"interval": scene.timeouts.poll_interval}
    with recording.Recorder.pods(scene.clients, scene.namespace) as recorder:
        holder, pod = start_holder(scene, workflows, shell, body)
        try:
            waiter = workflows.submit(with_entrypoint(body, "quick"))
            until(
                functools.partial(pending_without_nodes, workflows, waiter),
                timeout=scene.timeouts.pod_created,
                consecutive=3,
                describe=f"{waiter} to be Pending on the mutex {holder} holds",
                **wait,
            )
            shut_down(scene, waiter, "Terminate")
            terminated = ended(
                scene,
                workflows,
                waiter,
                f"{clause}: terminated {waiter} to end while {holder} holds the mutex",
            )
            still_holding(workflows, holder)
        finally:
            let_go(shell, pod)
        workflows.wait_completed(holder)
        after = workflows.submit(with_entrypoint(body, "quick"))
        third = ended(
            scene,
            workflows,
            after,
            f"{clause}: {after} to get the mutex and end after {holder} ended",
        )
    for actual, placeholder in ((waiter, "<waiter>"), (holder, "<holder>")):
        observations.alias(actual, placeholder)
    status = terminated["status"]
    waiter_pods = recording.pods_of_workflow(recorder.events(), waiter)
    observations.record("terminated.workflow", [status["phase"], status.get("message")])
    nodes = [
        [n.get("displayName"), n.get("phase"), n.get("message", "")]
        for n in (status.get("nodes") or {}).values()
    ]
    observations.record("terminated.nodes", nodes)
    observations.record("terminated.pods", len(waiter_pods))
    observations.record("next.workflow", third["status"]["phase"])
    checks = [
        (
            "phase and message of the terminated workflow",
            [status["phase"], status.get("message")],
            ["Failed", "Stopped with strategy 'Terminate'"],
        ),
        ("its nodes (display name, phase, message)", nodes, []),
        ("its pods", len(waiter_pods), 0),
        (
            "the phase of the next workflow asking for the mutex",
            third["status"]["phase"],
            "Succeeded",
        ),
    ]
    problems = [
        f"{clause}: {what}: expected {want!r}, got {got!r}"
        for what, got, want in checks
        if got != want
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.conformance(
    short_name="StatusSyncLockShutdown", clauses=["WPC-STATUS-019"]
)
def test_nodes_waiting_for_a_lock_fail_on_stop_and_terminate_while_it_is_held(
    workflows, scene, shell, observations
):
    clause = "WPC-STATUS-019"
    body = scene.manifest(TEMPLATE_LOCK)
    wait = {"interval": scene.timeouts.poll_interval}
    with recording.Recorder.pods(scene.clients, scene.namespace) as recorder:
        holder, pod = start_holder(scene, workflows, shell, body)
        try:
            names = {
                s: workflows.submit(with_entrypoint(body, "main")) for s in STRATEGIES
            }
            for name in names.values():
                until(
                    functools.partial(step_waits, scene, workflows, name),
                    timeout=scene.timeouts.pod_created,
                    consecutive=3,
                    describe=f"step locked of {name} to wait for the mutex {holder} holds",
                    **wait,
                )
            for strategy, name in names.items():
                shut_down(scene, name, strategy)
            done = {
                strategy: ended(
                    scene,
                    workflows,
                    name,
                    f"{clause}: {name}, shut down with {strategy}, to end while "
                    f"{holder} holds the mutex",
                )
                for strategy, name in names.items()
            }
            still_holding(workflows, holder)
        finally:
            let_go(shell, pod)
        workflows.wait_completed(holder)
    observations.alias(holder, "<holder>")
    problems = []
    for strategy, workflow in done.items():
        observations.alias(workflow["metadata"]["name"], f"<{strategy}>")
        status = workflow["status"]
        locked = workflow_ops.named_node(workflow, "locked")
        waiter_pods = recording.pods_of_workflow(
            recorder.events(), workflow["metadata"]["name"]
        )
        observations.record(
            f"{strategy}.workflow", [status["phase"], status.get("message")]
        )
        observations.record(
            f"{strategy}.locked", [locked["phase"], locked.get("message", "")]
        )
        observations.record(f"{strategy}.pods", len(waiter_pods))
        checks = [
            (
                "phase and message of the workflow",
                [status["phase"], status.get("message")],
                ["Failed", f"Stopped with strategy '{strategy}'"],
            ),
            ("phase of step locked", locked["phase"], "Failed"),
            ("its pods", len(waiter_pods), 0),
        ]
        problems += [
            f"{clause}: {strategy}: {what}: expected {want!r}, got {got!r}"
            for what, got, want in checks
            if got != want
        ]
    assert not problems, "\n".join(problems)


def held_mutexes(manifest: dict[str, Any]) -> list[str]:
    """The mutexes `held` asks for: the workflow's, then its template's."""
    spec = manifest["spec"]
    held = next(t for t in spec["templates"] if t["name"] == "held")
    return [
        m["name"]
        for sync in (spec["synchronization"], held["synchronization"])
        for m in sync["mutexes"]
    ]


def asking_for(manifest: dict[str, Any], mutex: str) -> dict[str, Any]:
    """A copy of `manifest` that starts at `quick` and asks for `mutex` alone."""
    body = with_entrypoint(manifest, "quick")
    body["spec"]["synchronization"] = {"mutexes": [{"name": mutex}]}
    return body


def all_ended(
    workflows: workflow_ops.Workflows, names: dict[str, str]
) -> dict[str, dict[str, Any]] | NotYet:
    """Every workflow of `names` (by mutex) once all are completed."""
    current = {mutex: workflows.get(name) for mutex, name in names.items()}
    waiting = [
        f"{mutex}: {names[mutex]} {summary(workflow)}"
        for mutex, workflow in current.items()
        if (workflow.get("status") or {}).get("phase") not in contract.COMPLETED
    ]
    return NotYet("; ".join(waiting)) if waiting else current


@pytest.mark.conformance(
    short_name="StatusSyncLockShutdown", clauses=["WPC-STATUS-026"]
)
def test_a_workflow_and_a_node_holding_several_mutexes_release_every_one(
    workflows, scene, shell, observations
):
    clause = "WPC-STATUS-026"
    body = scene.manifest(MANY_LOCKS)
    mutexes = held_mutexes(body)
    wait = {"interval": scene.timeouts.poll_interval}
    holder, pod = start_holder(scene, workflows, shell, body)
    try:
        waiters = {m: workflows.submit(asking_for(body, m)) for m in mutexes}
        for mutex, name in waiters.items():
            until(
                functools.partial(pending_without_nodes, workflows, name),
                timeout=scene.timeouts.pod_created,
                consecutive=3,
                describe=f"{name} to be Pending on the mutex {mutex} {holder} holds",
                **wait,
            )
        still_holding(workflows, holder)
    finally:
        let_go(shell, pod)
    held = workflows.wait_completed(holder)
    # Each waiter needs only its own mutex, which nothing holds once the holder
    # has ended: one still waiting when the completion timeout passes was never
    # given its mutex back, which is the clause broken.
    with watching.clause_limit(clause):
        done = until(
            functools.partial(all_ended, workflows, waiters),
            timeout=scene.timeouts.workflow_completed,
            describe=(
                f"{clause}: the workflows waiting for the mutexes {holder} held "
                "to end after it ended"
            ),
            **wait,
        )
    observations.alias(holder, "<holder>")
    observations.record("holder.workflow", held["status"]["phase"])
    for mutex, workflow in done.items():
        observations.alias(workflow["metadata"]["name"], f"<{mutex}>")
        observations.record(f"{mutex}.workflow", workflow["status"]["phase"])
    problems = [
        f"{clause}: the workflow asking for {mutex} after {holder} ended: expected "
        f"'Succeeded', got {summary(workflow)}"
        for mutex, workflow in done.items()
        if workflow["status"]["phase"] != "Succeeded"
    ]
    assert not problems, "\n".join(problems)
