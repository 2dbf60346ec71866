"""RecoveryWithStatusFinalizer: restarts and downtime with the status finalizer on.

We test these aspects on a dedicated controller instance with the status
finalizer switched on, and two runs of one workflow (`deleted-down`, whose
main records SIGTERM and exits 3, next to `finish-down`, which writes an
output parameter once released), recording every version of pods and
Workflows. The controller is restarted right after the submissions, then
stopped once all pods run; while it is down the suite deletes the second
Workflow, deletes the first one's `deleted-down` pod and releases its
`finish-down`, then starts the controller again:

- the deleted pod stayed readable, and its node gets its phase and message
  from the container statuses (`Failed`, `main: Error (exit code 3)...`, not
  `pod deleted`); the pod then loses the finalizer and is gone
  (WPC-RECOVERY-005);
- `finish-down` is `Succeeded` with exit code "0" and its output parameter, as
  without downtime (WPC-RECOVERY-001);
- the orphaned pods of the deleted Workflow lose the finalizer and are gone
  after the start (WPC-FINALIZER-007): they are being deleted, so the limit is
  the one for deleted pods (`status_finalizer_removed`, upstream's 2 min
  backstop counted from their last transition, plus latency);
- no pod keeps the finalizer beyond the cleanup timeout after its workflow
  completed, or beyond that limit after it was deleted (WPC-RECOVERY-004);
  remaining pods are labelled completed (WPC-RECOVERY-003), no node ever had
  two pods (WPC-RECOVERY-002), and no completed phase or Succeeded node
  changed (WPC-RECOVERY-009).

Matrix: legacy and initless.
"""

from __future__ import annotations

import dataclasses
import time
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

GRACE = 5
STEPS = ("deleted-down", "finish-down")


def _started(shell: Any, workflow: str) -> dict[str, Any]:
    kube_clients, namespace, timeouts = shell.clients, shell.namespace, shell.timeouts

    def all_pods() -> dict[str, Any] | NotYet:
        found = step_pods(kube_clients, namespace, workflow)
        return found if found.keys() == set(STEPS) else NotYet(sorted(found))

    pods: dict[str, Any] = until(
        all_pods,
        timeout=timeouts.pod_created + timeouts.controller_ready,
        interval=timeouts.poll_interval,
        describe=f"the pods of {workflow}",
    )
    for pod in pods.values():
        shell.wait_started(pod.metadata.name)
        assert contract.STATUS_FINALIZER in (pod.metadata.finalizers or []), (
            pod.metadata
        )
    return pods


def _held_pods(
    kube_clients: kube.Clients, namespace: str, workflow: str
) -> dict[str, Any]:
    return {
        step: (
            p.metadata.finalizers,
            p.metadata.labels.get("workflows.argoproj.io/completed"),
        )
        for step, p in step_pods(kube_clients, namespace, workflow).items()
        if contract.STATUS_FINALIZER in (p.metadata.finalizers or [])
        or p.metadata.labels.get("workflows.argoproj.io/completed") != "true"
    }


@pytest.mark.conformance(
    short_name="RecoveryWithStatusFinalizer",
    clauses=[
        "WPC-FINALIZER-007",
        "WPC-RECOVERY-001",
        "WPC-RECOVERY-002",
        "WPC-RECOVERY-003",
        "WPC-RECOVERY-004",
        "WPC-RECOVERY-005",
        "WPC-RECOVERY-009",
    ],
)
def test_downtime_with_the_status_finalizer_loses_no_status_and_leaves_no_pod_behind(
    dedicated_instance, workflows, scene, observations, shell
):
    dedicated_instance.set_status_finalizer(enabled=True)
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    poll = {"interval": scene.timeouts.poll_interval}
    recorders = recording.pods_and_workflows(scene.clients, scene.namespace)
    with recorders as (pods, versions):
        kept, orphaned = own.submit(scene.manifest()), own.submit(scene.manifest())
        dedicated_instance.restart()
        running = _started(shell, kept)
        orphans = _started(shell, orphaned)

        dedicated_instance.stop()
        scene.clients.custom.delete_namespaced_custom_object(
            contract.WORKFLOW_GROUP,
            contract.WORKFLOW_VERSION,
            scene.namespace,
            "workflows",
            orphaned,
        )
        deleted = running["deleted-down"].metadata.name
        scene.clients.core.delete_namespaced_pod(deleted, scene.namespace)
        shell.release(running["finish-down"].metadata.name)

        def all_terminated() -> bool | NotYet:
            current = step_pods(scene.clients, scene.namespace, kept)
            states = {
                step: [
                    bool(s.state.terminated) for s in p.status.container_statuses or []
                ]
                for step, p in current.items()
            }
            done = current.keys() == set(STEPS) and all(
                all(s) and s for s in states.values()
            )
            return done or NotYet(states)

        # The finalizer keeps the deleted pod readable while nobody can release it.
        until(
            all_terminated,
            timeout=GRACE + scene.timeouts.workflow_completed,
            describe=f"every container of {kept} to terminate while the controller is down",
            **poll,
        )
        dedicated_instance.start()
        restarted = time.monotonic()

        workflow = own.wait_completed(kept)
        observations.record_workflow(workflow)
        # The cleanup timeout, both clauses' limit; the last state says which broke.
        with watching.clause_limit(
            "WPC-RECOVERY-004 (finalizer) or WPC-RECOVERY-003 (label)"
        ):
            until(
                lambda: (
                    not (left := _held_pods(scene.clients, scene.namespace, kept))
                    or NotYet(left)
                ),
                timeout=scene.timeouts.cleanup,
                describe=f"the pods of {kept} to lose the finalizer and be labelled completed",
                **poll,
            )

        until(
            lambda: (
                deleted
                not in {
                    p.metadata.name
                    for p in step_pods(scene.clients, scene.namespace, kept).values()
                }
                or NotYet(f"{deleted} still exists")
            ),
            timeout=scene.timeouts.cleanup,
            describe=f"the deleted pod {deleted} to be gone",
            **poll,
        )

    # Every check below runs even when one before it failed, and the test then
    # fails naming each broken clause: a tag that breaks an early one (v3.6.0's
    # node message lacks the `main: ` prefix, WPC-RECOVERY-005) must still show
    # whether it keeps the orphans' finalizer (WPC-FINALIZER-007), which `make
    # history` judges by the clause the failure names.
    broken: list[str] = []
    nodes = {n["displayName"]: n for n in workflow["status"]["nodes"].values()}
    held = nodes["deleted-down"]
    if held.get("message") == "pod deleted":
        broken.append(f"WPC-RECOVERY-005: deleted-down: {held['phase']} 'pod deleted'")
    elif (held["phase"], held.get("message", "")[:25]) != (
        "Failed",
        "main: Error (exit code 3)",
    ):
        broken.append(
            f"WPC-RECOVERY-005: deleted-down: {held['phase']} {held.get('message')!r}"
        )
    try:
        assert_succeeded(
            nodes["finish-down"],
            parameters=[("answer", "42")],
            clause="WPC-RECOVERY-001",
        )
    except AssertionError as exc:
        broken.append(str(exc))
    assert len(orphans) == len(STEPS)

    events = pods.events()
    for name in (kept, orphaned):
        duplicates = {
            n: u for n, u in recording.pods_by_node(events, name).items() if len(u) > 1
        }
        if duplicates:
            broken.append(
                f"WPC-RECOVERY-002: {name}: nodes with more than one pod: {duplicates}"
            )
    regressions = recording.phase_regressions(versions.events(), kept)
    if regressions:
        broken.append("WPC-RECOVERY-009: " + "\n".join(regressions))

    # Last, as it takes longest: the orphans of the deleted Workflow. They are
    # being deleted, so Argo releases them only at its backstop, 2 min after
    # their last transition; `status_finalizer_removed` is that limit.
    try:
        with watching.clause_limit("WPC-FINALIZER-007"):
            until(
                lambda: (
                    not (
                        left := sorted(
                            step_pods(scene.clients, scene.namespace, orphaned)
                        )
                    )
                    or NotYet(f"orphans still there: {left}")
                ),
                timeout=max(
                    0.0,
                    restarted
                    + scene.timeouts.status_finalizer_removed
                    - time.monotonic(),
                ),
                describe=f"the orphaned pods of {orphaned} to be gone after the restart",
                **poll,
            )
    except AssertionError as exc:
        broken.append(str(exc))
    assert not broken, "\n".join(broken)
