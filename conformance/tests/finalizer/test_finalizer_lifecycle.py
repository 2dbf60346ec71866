"""FinalizerLifecycle: the status finalizer is added at creation and removed per node.

We test these aspects on a private controller instance of the layout with the
status-capture finalizer switched on (no scenario changes a shared instance: the
switch restarts its controller under the tests running beside it), and a
three-step workflow `first` -> `held` -> `last`:

- the first observed version (the ADDED event) of every pod carries
  `workflows.argoproj.io/status` (WPC-FINALIZER-001);
- `first`'s pod loses it within the cleanup timeout while `held` still runs,
  and every pod has lost it within the cleanup timeout after the workflow
  completed (WPC-FINALIZER-003);
- a foreign finalizer `wpc.dev/keep` added to `held`'s running pod is still
  there after the controller removed its own (WPC-FINALIZER-008); the test
  removes it itself, also when it fails.

Matrix: legacy and initless.
"""

from __future__ import annotations

import dataclasses

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster import watching
from conformance.harness.inspecting import recording
from conformance.harness.workload.workflows import step_pods

KEEP = "wpc.dev/keep"


def _finalizers(
    kube_clients: kube.Clients, namespace: str, workflow: str, step: str
) -> list[str]:
    pod = step_pods(kube_clients, namespace, workflow)[step]
    return list(pod.metadata.finalizers or [])


def _drop_keep(kube_clients: kube.Clients, namespace: str, pod: str) -> None:
    current = (
        kube_clients.core.read_namespaced_pod(pod, namespace).metadata.finalizers or []
    )
    if KEEP not in current:
        return  # already gone (a controller that dropped it fails WPC-FINALIZER-008)
    kept = [f for f in current if f != KEEP]
    kube_clients.core.patch_namespaced_pod(
        pod,
        namespace,
        [{"op": "replace", "path": "/metadata/finalizers", "value": kept}],
    )


@pytest.mark.conformance(
    short_name="FinalizerLifecycle",
    clauses=["WPC-FINALIZER-001", "WPC-FINALIZER-003", "WPC-FINALIZER-008"],
)
def test_status_finalizer_is_added_at_creation_and_removed_once_each_node_is_done(
    workflows, manifest, kube_clients, namespace, dedicated_instance, timeouts, shell
):
    dedicated_instance.set_status_finalizer(enabled=True)
    workflows = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    wait = {"interval": timeouts.poll_interval}
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        name = workflows.submit(manifest())
        held = until(
            lambda: (
                step_pods(kube_clients, namespace, name).get("held")
                or NotYet(sorted(step_pods(kube_clients, namespace, name)))
            ),
            timeout=timeouts.workflow_completed,
            describe=f"the pod of step held of {name}",
            **wait,
        ).metadata.name
        shell.wait_started(held)

        # WPC-FINALIZER-003: first's pod is cleaned up while the workflow runs, within
        # the cleanup timeout, the limit the clause sets.
        with watching.clause_limit("WPC-FINALIZER-003"):
            until(
                lambda: (
                    contract.STATUS_FINALIZER
                    not in (
                        found := _finalizers(kube_clients, namespace, name, "first")
                    )
                    or NotYet(found)
                ),
                timeout=timeouts.cleanup,
                describe="the status finalizer to leave the pod of step first",
                **wait,
            )
        assert workflows.get(name)["status"]["phase"] == "Running"

        # WPC-FINALIZER-001, while held runs: its pod carries the status finalizer
        # (the first-version check of every pod follows at the end).
        carried = _finalizers(kube_clients, namespace, name, "held")
        assert contract.STATUS_FINALIZER in carried, (
            f"WPC-FINALIZER-001: the running pod of step held has finalizers {carried}"
        )

        # WPC-FINALIZER-008: the controller leaves other finalizers alone.
        kube_clients.core.patch_namespaced_pod(
            held,
            namespace,
            [{"op": "add", "path": "/metadata/finalizers/-", "value": KEEP}],
        )
        try:
            shell.release(held)
            until(
                lambda: (
                    contract.STATUS_FINALIZER
                    not in (found := _finalizers(kube_clients, namespace, name, "held"))
                    or NotYet(found)
                ),
                timeout=timeouts.cleanup,
                describe="the status finalizer to leave the pod of step held",
                consecutive=3,
                **wait,
            )
            kept = _finalizers(kube_clients, namespace, name, "held")
            assert kept == [KEEP], (
                f"WPC-FINALIZER-008: the pod of step held has finalizers {kept} once "
                f"the controller removed its own; expected only {KEEP}"
            )
        finally:
            _drop_keep(kube_clients, namespace, held)

        workflow = workflows.wait_completed(name)
        assert workflow["status"]["phase"] == "Succeeded", workflow["status"].get(
            "message"
        )
        until(
            lambda: (
                not (
                    left := {
                        step: p.metadata.finalizers
                        for step, p in step_pods(kube_clients, namespace, name).items()
                        if contract.STATUS_FINALIZER in (p.metadata.finalizers or [])
                    }
                )
                or NotYet(left)
            ),
            timeout=timeouts.cleanup,
            describe=f"every pod of {name} to lose the status finalizer",
            **wait,
        )

    # WPC-FINALIZER-001: the first version of every pod carried the finalizer.
    first: dict[str, recording.Event] = {}
    for event in recorder.events():
        if (
            event.obj["metadata"]
            .get("labels", {})
            .get("workflows.argoproj.io/workflow")
            == name
        ):
            first.setdefault(event.uid, event)
    assert len(first) == 3, f"expected 3 pods, saw {len(first)}"
    bad = {
        e.obj["metadata"]["name"]: (e.kind, e.obj["metadata"].get("finalizers"))
        for e in first.values()
        if e.kind != "ADDED"
        or contract.STATUS_FINALIZER not in (e.obj["metadata"].get("finalizers") or [])
    }
    assert not bad, (
        f"WPC-FINALIZER-001: pods whose first version lacked "
        f"{contract.STATUS_FINALIZER}: {bad}"
    )
