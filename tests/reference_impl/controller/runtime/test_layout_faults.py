"""We test these aspects of the layout faults (negative controls of the LAYOUT clauses,
issue 28 item 3), against the fake API of test_controlling, no cluster:

- `always-initless` builds the pod of a workflow in the init-less layout although the
  configuration says `enabled: false` (WPC-LAYOUT-001), and `never-initless` in the
  legacy layout although it says `enabled: true` (WPC-LAYOUT-002); each is inert when
  not selected.
"""

from __future__ import annotations

from reference_impl.controller import faults
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
