"""LayoutSwitchKeepsInFlightPods: switching the layout spares running pods.

We test these aspects, with a private controller instance (the suite's
`dedicated_instance`) started in the test's layout and
`manifests/layout-switch-keeps-in-flight-pods.yaml` (step `produce` runs until
the test releases it through exec; step `consume` receives its output):

- with `produce` running, the test switches the instance to the other layout
  (`initlessPod.enabled` in its configuration) and submits probe workflows until
  a new pod shows the new layout; after the workflow completed it switches back
  and probes again, within the config-propagation timeout each time, while the
  controller's pods stay the same (no restart) (WPC-LAYOUT-003);
- `produce`'s pod keeps its uid, containers, init containers and volumes, and
  its main container runs to completion with exit code 0 (WPC-LAYOUT-004);
- the workflow succeeds, `consume`'s pod is in the new layout, and the value
  produced under the old layout reaches it (WPC-LAYOUT-005).

Matrix: legacy and init-less (the layout the instance starts in).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import watching
from conformance.harness.inspecting import executing
from conformance.harness.instances import layouts
from conformance.harness.workload import pods
from conformance.harness.workload import workflows as workflow_ops

VALUE = "crossed the layout switch"
PROBE = "layout-switch-keeps-in-flight-pods-probe.yaml"


@pytest.fixture
def private_namespace(profile: Any, instances: Any, wpc_layout: str) -> None:
    """Refuse to run if a dedicated instance would land in a shared instance's namespace.

    Requested before `dedicated_instance`, so that its install (and uninstall)
    never replaces the controller other tests are using.
    """
    target = profile.controller_namespace.format_map(
        {"instance_id": "wpc-t-probe", "layout": wpc_layout}
    )
    if target in {i.namespace for i in instances}:
        raise HarnessError(
            f"profile {profile.name}: controller.namespace {profile.controller_namespace!r} puts a "
            f"dedicated instance into the shared namespace {target}; it needs {{instance_id}}"
        )


def pods_of(kube_clients: Any, namespace: str, workflow: str) -> list[dict[str, Any]]:
    listing = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={workflow}"
    )
    return [kube_clients.api.sanitize_for_serialization(p) for p in listing.items]


def controller_pods(
    kube_clients: Any, selector: str, instance: layouts.Instance
) -> dict[str, int]:
    """uid -> restart count of the instance's controller pods."""
    found = kube_clients.core.list_namespaced_pod(
        instance.namespace, label_selector=selector
    ).items
    if not found:
        raise HarnessError(
            f"no controller pod matches {selector!r} in {instance.namespace}"
        )
    return {
        p.metadata.uid: sum(s.restart_count for s in p.status.container_statuses or [])
        for p in found
    }


def probe_until(
    target: str, *, wfs: workflow_ops.Workflows, probe: dict[str, Any], timeouts: Any
) -> str:
    """Submit probes until one's pod is in the `target` layout; return that pod's name.

    The wait is bounded by the config-propagation timeout, the limit WPC-LAYOUT-003
    itself names ("the test fails if none does within the config-propagation
    timeout"): running out is the clause broken, an assertion naming it.
    """
    submitted: list[str] = []

    def check() -> str | NotYet:
        seen = "no probe yet"
        if submitted:
            found = pods_of(wfs.clients, wfs.namespace, submitted[-1])
            if not found:
                return NotYet(f"probe {submitted[-1]} has no pod yet")
            seen = f"probe {submitted[-1]}'s pod is {pods.layout_of(found[0])}"
            if pods.layout_of(found[0]) == target:
                return str(found[0]["metadata"]["name"])
            phase = (wfs.get(submitted[-1]).get("status") or {}).get("phase")
            if phase not in contract.COMPLETED:  # one probe at a time
                return NotYet(f"{seen}; waiting for it to complete before the next")
        submitted.append(wfs.submit(probe))
        return NotYet(f"{seen}; submitted probe {submitted[-1]}")

    with watching.clause_limit("WPC-LAYOUT-003"):  # the config-propagation timeout
        return until(
            check,
            timeout=timeouts.config_propagation,
            interval=timeouts.poll_interval,
            describe=f"WPC-LAYOUT-003: a new pod in the {target} layout after the switch",
        )


@pytest.mark.conformance(
    short_name="LayoutSwitchKeepsInFlightPods",
    clauses=["WPC-LAYOUT-003", "WPC-LAYOUT-004", "WPC-LAYOUT-005"],
)
def test_layout_switch_applies_to_new_pods_only_and_rolls_back(
    private_namespace,
    dedicated_instance,
    scene,
    observations,
    test_labels,
    controller_selector,
):
    ctl = dedicated_instance
    start = ctl.instance.layout
    switched = contract.INITLESS if start == contract.LEGACY else contract.LEGACY
    wfs = workflow_ops.Workflows(
        clients=scene.clients,
        namespace=scene.namespace,
        labels=test_labels,
        instance=ctl.instance,
        timeouts=scene.timeouts,
    )
    controllers = controller_pods(
        scene.clients, controller_selector(ctl.instance), ctl.instance
    )
    name = wfs.submit(scene.manifest())

    def produce_running() -> dict[str, Any] | NotYet:
        found = pods_of(scene.clients, scene.namespace, name)
        for pod in found:
            statuses = {
                s["name"]: s
                for s in (pod.get("status") or {}).get("containerStatuses") or []
            }
            if "running" in (statuses.get("main", {}).get("state") or {}):
                return pod
        return NotYet(
            f"pods of {name}: {[(p['metadata']['name'], p.get('status', {}).get('phase')) for p in found]}"
        )

    before = until(
        produce_running,
        timeout=scene.timeouts.user_command_started,
        interval=scene.timeouts.poll_interval,
        describe=f"the main container of {name}'s first pod to run",
    )
    assert pods.layout_of(before) == start, (
        f"the instance started in {start}, but built {pods.layout_of(before)}"
    )
    ctl.set_layout(switched)
    probe_until(switched, wfs=wfs, probe=scene.manifest(PROBE), timeouts=scene.timeouts)
    released = executing.run(
        scene.clients,
        namespace=scene.namespace,
        pod=before["metadata"]["name"],
        container="main",
        command=["touch", "/tmp/release"],
        timeout=scene.timeouts.api_call,
    )
    assert released.returncode == 0, (
        f"releasing {before['metadata']['name']} through exec: {released}"
    )
    workflow = wfs.wait_completed(name)
    observations.record_workflow(workflow)
    ctl.set_layout(start)
    probe_until(start, wfs=wfs, probe=scene.manifest(PROBE), timeouts=scene.timeouts)

    after = {
        p["metadata"]["name"]: p for p in pods_of(scene.clients, scene.namespace, name)
    }
    kept = after.get(before["metadata"]["name"], {"metadata": {}, "spec": {}})
    later = [p for n, p in after.items() if n != before["metadata"]["name"]]
    main = {
        s["name"]: s for s in (kept.get("status") or {}).get("containerStatuses") or []
    }.get("main", {})
    nodes = {n.get("displayName"): n for n in workflow["status"]["nodes"].values()}
    got = (nodes.get("consume", {}).get("outputs") or {}).get("parameters") or [{}]
    shape = ("containers", "initContainers", "volumes")
    checks = [
        (
            "WPC-LAYOUT-003",
            "controller pods (uid: restarts) after both switches",
            controller_pods(
                scene.clients, controller_selector(ctl.instance), ctl.instance
            ),
            controllers,
        ),
        (
            "WPC-LAYOUT-004",
            "uid of the pod running across the switch",
            kept["metadata"].get("uid"),
            before["metadata"]["uid"],
        ),
        (
            "WPC-LAYOUT-004",
            "its containers, init containers and volumes",
            [kept["spec"].get(k) for k in shape],
            [before["spec"].get(k) for k in shape],
        ),
        (
            "WPC-LAYOUT-004",
            "its main container's exit code",
            ((main.get("state") or {}).get("terminated") or {}).get("exitCode"),
            0,
        ),
        ("WPC-LAYOUT-005", "workflow phase", workflow["status"]["phase"], "Succeeded"),
        (
            "WPC-LAYOUT-005",
            "layouts of the pods built after the switch",
            [pods.layout_of(p) for p in later],
            [switched],
        ),
        (
            "WPC-LAYOUT-005",
            "value the second step received",
            got[0].get("value"),
            VALUE,
        ),
    ]
    problems = [
        f"{clause}: {what}: expected {want!r}, got {have!r}"
        for clause, what, have, want in checks
        if have != want
    ]
    assert not problems, "\n".join(problems)
