"""We test these aspects of the layout faults (negative controls of the LAYOUT clauses,
issue 28 item 3), against the fake API of test_controlling, no cluster:

- `always-initless` builds the pod of a workflow in the init-less layout although the
  configuration says `enabled: false` (WPC-LAYOUT-001), and `never-initless` in the
  legacy layout although it says `enabled: true` (WPC-LAYOUT-002); each is inert when
  not selected;
- `delete-old-layout-pods` deletes the completed first pod of a running two-step
  workflow, built in the layout in force before a switch, instead of labelling it
  completed (WPC-LAYOUT-004), while a pod of the layout in force, the pod of a
  one-pod workflow (which completes with it), and any pod without the fault, is
  labelled as before;
- `workflow-keeps-layout` builds the second step's pod, after a switch, in the layout
  of the first (WPC-LAYOUT-005), while a workflow first seen after the switch, and
  any workflow without the fault, gets the new layout.
"""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.controller import faults
from reference_impl.controller.runtime.controlling import WorkflowController
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.runtime.test_controlling import FakeApi
from tests.reference_impl.controller.runtime.test_controlling import configmap
from tests.reference_impl.controller.runtime.test_controlling import controller
from tests.reference_impl.controller.runtime.test_controlling import drain
from tests.reference_impl.controller.runtime.test_controlling import hello

Json = dict[str, Any]


def containers_of_first_pod(fault: faults.Fault | None, *, initless: bool) -> list[str]:
    """The names of the containers of the first pod built with `initlessPod` as given."""
    wfc, api = controller(fault)
    wfc.configmaps.apply("ADDED", configmap(initless))
    wfc.workflows.apply("ADDED", hello())
    drain(wfc.queue)
    wfc.process_workflow("ns/hello")
    pod = api.created[0]
    return [c["name"] for c in pod["spec"].get("initContainers") or []] + [
        c["name"] for c in pod["spec"]["containers"]
    ]


def test_always_initless_builds_initless_pods_when_the_config_disables_them() -> None:
    assert containers_of_first_pod(None, initless=False) == ["init", "wait", "main"]
    assert containers_of_first_pod(faults.Fault.ALWAYS_INITLESS, initless=False) == [
        "supervisor",
        "main",
    ]
    assert containers_of_first_pod(faults.Fault.ALWAYS_INITLESS, initless=True) == [
        "supervisor",
        "main",
    ]


def test_never_initless_builds_legacy_pods_when_the_config_enables_initless() -> None:
    assert containers_of_first_pod(None, initless=True) == ["supervisor", "main"]
    assert containers_of_first_pod(faults.Fault.NEVER_INITLESS, initless=True) == [
        "init",
        "wait",
        "main",
    ]


def two_steps(name: str, uid: str) -> Json:
    """A workflow of two container steps, `first` then `second`."""
    wf = hello(name=name, uid=uid)
    echo = {"name": "echo", "container": {"image": "busybox", "command": ["true"]}}
    steps = [
        [{"name": "first", "template": "echo"}],
        [{"name": "second", "template": "echo"}],
    ]
    wf["spec"]["templates"] = [{"name": "main", "steps": steps}, echo]
    return wf


def switch_to_initless(wfc: WorkflowController) -> None:
    """The ConfigMap's new version: `initlessPod` enabled."""
    switched = configmap(True)
    switched["metadata"]["resourceVersion"] = "3"  # a new version reaches the handler
    wfc.configmaps.apply("MODIFIED", switched)


def cleanup_after_completion(
    fault: faults.Fault | None, *, switch: bool, steps: int = 2
) -> tuple[WorkflowController, FakeApi, list[str]]:
    """The clean-up queued for the first legacy pod once it completed, the layout
    switched or not; with `steps=1` its completion completes the workflow too."""
    wfc, api = controller(fault)
    wfc.configmaps.apply("ADDED", configmap(False))
    wfc.workflows.apply("ADDED", two_steps("wf", "uid-1") if steps == 2 else hello())
    name = "wf" if steps == 2 else "hello"
    wfc.process_workflow(f"ns/{name}")
    wfc.workflows.apply("MODIFIED", api.replaced[-1])
    if switch:
        switch_to_initless(wfc)
    pod = copy.deepcopy(api.created[0])
    pod["metadata"]["resourceVersion"] = "7"
    pod["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", pod)
    drain(wfc.cleaner.queue)
    wfc.process_workflow(f"ns/{name}")
    phase = api.replaced[-1]["status"]["phase"]
    assert phase == ("Running" if steps == 2 else "Succeeded"), phase
    key = f"ns/{pod['metadata']['name']}/"
    return (
        wfc,
        api,
        [k[len(key) :] for k in drain(wfc.cleaner.queue) if k.startswith(key)],
    )


def test_delete_old_layout_pods_deletes_a_pod_of_the_layout_switched_from() -> None:
    fault = faults.Fault.DELETE_OLD_LAYOUT_PODS
    wfc, api, queued = cleanup_after_completion(fault, switch=True)
    assert queued == ["deletePod"]
    name = api.created[0]["metadata"]["name"]
    wfc.cleaner.process(f"ns/{name}/deletePod")
    assert name in api.deleted
    assert cleanup_after_completion(fault, switch=False)[2] == ["labelPodCompleted"]
    assert cleanup_after_completion(None, switch=True)[2] == ["labelPodCompleted"]


def test_delete_old_layout_pods_spares_the_pods_of_completed_workflows() -> None:
    """A one-pod workflow (the killer's probes) completes with its pod: labelled."""
    fault = faults.Fault.DELETE_OLD_LAYOUT_PODS
    queued = cleanup_after_completion(fault, switch=True, steps=1)[2]
    assert queued == ["labelPodCompleted"]


def layouts_across_a_switch(fault: faults.Fault | None) -> list[bool]:
    """Whether each pod is init-less: a workflow's two steps, switched in between,
    then a workflow submitted after the switch."""
    wfc, api = controller(fault)
    wfc.configmaps.apply("ADDED", configmap(False))
    wfc.workflows.apply("ADDED", two_steps("wf", "uid-1"))
    wfc.process_workflow("ns/wf")
    wfc.workflows.apply("MODIFIED", api.replaced[-1])
    switch_to_initless(wfc)
    first = copy.deepcopy(api.created[0])
    first["metadata"]["resourceVersion"] = "7"
    first["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", first)
    wfc.process_workflow("ns/wf")
    wfc.workflows.apply("ADDED", two_steps("later", "uid-2"))
    wfc.process_workflow("ns/later")
    assert len(api.created) == 3, [p["metadata"]["name"] for p in api.created]
    return [faults.built_initless(p) for p in api.created]


def test_workflow_keeps_layout_builds_later_steps_in_the_first_steps_layout() -> None:
    assert layouts_across_a_switch(None) == [False, True, True]
    assert layouts_across_a_switch(faults.Fault.WORKFLOW_KEEPS_LAYOUT) == [
        False,
        False,
        True,
    ]
