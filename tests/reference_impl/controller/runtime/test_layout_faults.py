"""We test these aspects of the layout faults (negative controls of the LAYOUT clauses,
issue 28 item 3), against the fake API of test_controlling, no cluster:

- `always-initless` builds the pod of a workflow in the init-less layout although the
  configuration says `enabled: false` (WPC-LAYOUT-001), and `never-initless` in the
  legacy layout although it says `enabled: true` (WPC-LAYOUT-002); each is inert when
  not selected;
- `delete-old-layout-pods` deletes a completed pod built in the layout in force before a
  switch instead of labelling it completed (WPC-LAYOUT-004), while a pod of the layout
  in force, and any pod without the fault, is labelled as before.
"""

from __future__ import annotations

import copy

from reference_impl.controller import faults
from reference_impl.controller.runtime.controlling import WorkflowController
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.runtime.test_controlling import FakeApi
from tests.reference_impl.controller.runtime.test_controlling import configmap
from tests.reference_impl.controller.runtime.test_controlling import controller
from tests.reference_impl.controller.runtime.test_controlling import drain
from tests.reference_impl.controller.runtime.test_controlling import hello


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


def cleanup_after_completion(
    fault: faults.Fault | None, *, switch: bool
) -> tuple[WorkflowController, FakeApi, list[str]]:
    """The clean-up queued once a legacy pod completed, the layout switched or not."""
    wfc, api = controller(fault)
    wfc.configmaps.apply("ADDED", configmap(False))
    wfc.workflows.apply("ADDED", hello())
    wfc.process_workflow("ns/hello")
    wfc.workflows.apply("MODIFIED", api.replaced[-1])
    if switch:
        switched = configmap(True)
        switched["metadata"]["resourceVersion"] = "3"
        wfc.configmaps.apply("MODIFIED", switched)
    pod = copy.deepcopy(api.created[0])
    pod["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", pod)
    drain(wfc.cleaner.queue)
    wfc.process_workflow("ns/hello")
    assert api.replaced[-1]["status"]["phase"] == "Succeeded"
    return wfc, api, drain(wfc.cleaner.queue)


def test_delete_old_layout_pods_deletes_a_pod_of_the_layout_switched_from() -> None:
    fault = faults.Fault.DELETE_OLD_LAYOUT_PODS
    wfc, api, queued = cleanup_after_completion(fault, switch=True)
    assert queued == ["ns/hello/deletePod"]
    wfc.cleaner.process("ns/hello/deletePod")
    assert "hello" in api.deleted
    assert cleanup_after_completion(fault, switch=False)[2] == [
        "ns/hello/labelPodCompleted"
    ]
    assert cleanup_after_completion(None, switch=True)[2] == [
        "ns/hello/labelPodCompleted"
    ]
