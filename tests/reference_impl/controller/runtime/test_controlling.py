"""We test these aspects of the controller around one reconciliation, against a fake API:
persisting and pod creation, clean-up after persist (label + finalizer removal), the
finalizer paths for deleted workflows, orphaned and deleting pods (and the leave-finalizer
fault), re-synchronisation of a completed workflow's leftover pods after downtime,
terminating containers, the layout switch with and without keep-old-layout, and the two
restart faults of issue 16: restart-suspend-timer (a suspend that ended while no controller
ran resumes only a whole duration after the restart) and rerun-hook-on-restart (an
exit hook still running at the restart gets a second pod, other running nodes are
adopted), each inactive without its switch.
Also restart-skips-cleanup (the pods of a finished node, created before the process
started, are never cleaned up; its own pods are).
Also claim-sibling-pods (the init-less instance of a fault relabels each pod of its
legacy twin once and gives it back; no other instance is watched or touched).
Also reopen-after-restart (a workflow completed before the process started is written
back as Running once, then its phase is restored)."""

from __future__ import annotations

import copy
import datetime
from typing import Any
from typing import cast

import pytest

from reference_impl.controller import faults
from reference_impl.controller.cleanup import decisions
from reference_impl.controller.config import configuration
from reference_impl.controller.machinery import sources
from reference_impl.controller.machinery.queueing import WorkQueue
from reference_impl.controller.runtime.controlling import WorkflowController
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.conftest import workflow

FINALIZER = "workflows.argoproj.io/status"
Json = dict[str, Any]


class FakeApi:
    def __init__(self) -> None:
        self.created: list[Json] = []
        self.patched: list[tuple[str, Json]] = []
        self.deleted: list[str] = []
        self.execs: list[tuple[str, list[str]]] = []
        self.replaced: list[Json] = []
        self.pods_by_label: list[Json] = []

    def create_pod(self, pod: Json) -> Json:
        self.created.append(pod)
        return pod

    def patch_pod(self, namespace: str, name: str, patch: Json) -> Json:
        self.patched.append((name, patch))
        return {}

    def delete_pod(
        self,
        namespace: str,
        name: str,
        *,
        grace_seconds: int | None = None,
        uid: str | None = None,
    ) -> None:
        self.deleted.append(name)

    def exec_in_container(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> str:
        self.execs.append((container, command))
        return ""

    def replace_workflow(self, workflow: Json) -> Json:
        stored = copy.deepcopy(workflow)
        stored["metadata"]["resourceVersion"] = str(len(self.replaced) + 10)
        self.replaced.append(stored)
        return stored

    def delete_task_results(self, namespace: str, workflow: str) -> None:
        self.deleted.append(f"taskresults/{workflow}")

    def list_pods(self, namespace: str, label_selector: str) -> list[Json]:
        return self.pods_by_label


class Monotonic:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def controller(
    fault: faults.Fault | None = None, *, initless: bool = False, finalizer: bool = True
) -> tuple[WorkflowController, FakeApi]:
    api = FakeApi()
    wfc = WorkflowController(
        api=cast(Any, api),
        settings=settings(status_capture_finalizer=finalizer, fault=fault),
        startup_config=configuration.ControllerConfig(initless=initless),
        clock=lambda: NOW,
        monotonic=Monotonic(),
    )
    return wfc, api


def advance(wfc: WorkflowController, seconds: float) -> None:
    cast(Monotonic, wfc.monotonic).now += seconds


def hello(version: str = "1", **meta: Any) -> Json:
    return {
        "metadata": {
            "name": "hello",
            "namespace": "ns",
            "uid": "u",
            "resourceVersion": version,
            **meta,
        },
        "spec": {
            "entrypoint": "main",
            "templates": [
                {"name": "main", "container": {"image": "busybox", "command": ["true"]}}
            ],
        },
    }


def drain(queue: WorkQueue) -> list[str]:
    keys = []
    while (key := queue.get(timeout=0)) is not None:
        keys.append(key)
        queue.done(key)
    return keys


def test_a_new_workflow_is_persisted_running_and_its_pod_created() -> None:
    wfc, api = controller()
    wfc.workflows.apply("ADDED", hello())
    assert drain(wfc.queue) == ["ns/hello"]
    wfc.process_workflow("ns/hello")
    assert api.replaced[-1]["status"]["phase"] == "Running"
    assert [p["metadata"]["name"] for p in api.created] == ["hello"]
    assert api.created[0]["metadata"]["finalizers"] == [FINALIZER]


def test_a_finished_pod_is_labelled_completed_and_loses_the_finalizer_after_persist() -> (
    None
):
    wfc, api = controller()
    wfc.workflows.apply("ADDED", hello())
    wfc.process_workflow("ns/hello")
    wfc.workflows.apply("MODIFIED", api.replaced[-1])
    pod = copy.deepcopy(api.created[0])
    pod["metadata"]["resourceVersion"] = "7"
    pod["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", pod)
    wfc.process_workflow("ns/hello")
    assert api.replaced[-1]["status"]["phase"] == "Succeeded"
    assert "taskresults/hello" in api.deleted
    assert drain(wfc.cleaner.queue) == ["ns/hello/labelPodCompleted"]
    wfc.cleaner.process("ns/hello/labelPodCompleted")
    assert api.patched == [
        (
            "hello",
            {
                "metadata": {
                    "labels": {"workflows.argoproj.io/completed": "true"},
                    "finalizers": [],
                    "resourceVersion": "7",
                }
            },
        )
    ]


def leftover_pod(**meta: Any) -> Json:
    return {
        "metadata": {
            "name": "hello",
            "namespace": "ns",
            "resourceVersion": "5",
            "finalizers": [FINALIZER],
            "labels": {
                "workflows.argoproj.io/workflow": "hello",
                "workflows.argoproj.io/completed": "false",
            },
            "annotations": {
                "workflows.argoproj.io/node-id": "hello",
                "workflows.argoproj.io/node-name": "hello",
            },
            "ownerReferences": [
                {"kind": "Workflow", "name": "hello", "controller": True}
            ],
            **meta,
        },
        "status": {"phase": "Succeeded"},
    }


def test_deleting_a_workflow_strips_the_finalizer_from_its_pods() -> None:
    wfc, api = controller()
    api.pods_by_label = [leftover_pod()]
    wfc.workflows.apply("ADDED", hello())
    wfc.workflows.apply("DELETED", hello())
    assert drain(wfc.cleaner.queue) == ["ns/hello/removeFinalizer"]


def test_leave_finalizer_fault_keeps_finalizers_of_deleted_workflows() -> None:
    wfc, api = controller(faults.Fault.LEAVE_FINALIZER)
    api.pods_by_label = [leftover_pod()]
    wfc.workflows.apply("DELETED", hello())
    wfc.pods.apply("ADDED", leftover_pod(deletionTimestamp="2026-01-02T03:00:00Z"))
    assert drain(wfc.cleaner.queue) == []


def test_an_orphaned_pod_loses_the_finalizer_at_once() -> None:
    wfc, _ = controller()
    wfc.pods.apply("ADDED", leftover_pod())
    assert drain(wfc.cleaner.queue) == ["ns/hello/removeFinalizer"]


def test_a_deleting_pod_of_a_live_workflow_keeps_the_finalizer_for_two_minutes() -> (
    None
):
    wfc, _ = controller()
    wfc.workflows.apply("ADDED", hello())
    pod = leftover_pod(deletionTimestamp="2026-01-02T03:04:00Z")
    pod["status"]["conditions"] = [
        {"type": "Ready", "lastTransitionTime": "2026-01-02T03:04:05Z"}
    ]
    wfc.pods.apply("ADDED", pod)
    assert drain(wfc.cleaner.queue) == []
    advance(wfc, 119)
    assert drain(wfc.cleaner.queue) == []
    advance(wfc, 1)
    assert drain(wfc.cleaner.queue) == ["ns/hello/removeFinalizer"]


def test_a_completed_workflows_leftover_pods_are_cleaned_on_resync() -> None:
    wfc, api = controller()
    done = hello(labels={"workflows.argoproj.io/completed": "true"})
    done["status"] = {
        "phase": "Succeeded",
        "nodes": {
            "hello": {
                "id": "hello",
                "name": "hello",
                "type": "Pod",
                "phase": "Succeeded",
            }
        },
    }
    wfc.workflows.apply("ADDED", done)
    wfc.pods.apply("ADDED", leftover_pod())
    drain(wfc.cleaner.queue)
    wfc.process_workflow("ns/hello")
    assert api.replaced == []
    assert drain(wfc.cleaner.queue) == ["ns/hello/labelPodCompleted"]


def test_terminate_signals_running_containers_then_queues_sigkill() -> None:
    wfc, api = controller()
    pod = leftover_pod()
    pod["spec"] = {
        "containers": [
            {"name": "wait"},
            {"name": "main", "volumeMounts": [{"mountPath": "/var/run/argo"}]},
            {"name": "envoy"},
        ]
    }
    pod["status"] = pod_status(
        "Running", main=terminated(0), wait=running(), envoy=running()
    )
    wfc.pods.apply("ADDED", pod)
    drain(wfc.cleaner.queue)
    wfc.cleaner.process("ns/hello/terminateContainers")
    assert api.execs == [  # not the aux container: see cleaning._OWN_AUX
        ("envoy", ["/bin/sh", "-c", "kill -15 1"]),
    ]
    advance(wfc, 30)
    assert drain(wfc.cleaner.queue) == ["ns/hello/killContainers"]


def test_terminating_a_pending_pod_deletes_it() -> None:
    wfc, _ = controller()
    pod = leftover_pod()
    pod["status"] = {"phase": "Pending"}
    wfc.pods.apply("ADDED", pod)
    drain(wfc.cleaner.queue)
    wfc.cleaner.process("ns/hello/terminateContainers")
    assert drain(wfc.cleaner.queue) == ["ns/hello/deletePod"]


def configmap(initless: bool) -> Json:
    return {
        "metadata": {
            "name": "workflow-controller-configmap",
            "namespace": "argo",
            "resourceVersion": "2",
        },
        "data": {"initlessPod": f"enabled: {str(initless).lower()}\n"},
    }


def test_layout_follows_the_configmap_unless_keep_old_layout() -> None:
    wfc, _ = controller()
    wfc.configmaps.apply("ADDED", configmap(True))
    assert wfc.initless()
    stuck, _ = controller(faults.Fault.KEEP_OLD_LAYOUT)
    stuck.configmaps.apply("ADDED", configmap(True))
    assert not stuck.initless()


def test_cleanup_actions_map_to_queue_keys() -> None:
    wfc, _ = controller()
    wfc.cleaner.enqueue("ns", "p", decisions.Action.DELETE)
    assert drain(wfc.cleaner.queue) == ["ns/p/deletePod"]


# -- restart faults (issue 16): the controller started at NOW, the work began before ----

NODE_NAME = "workflows.argoproj.io/node-name"
HOOK = "wf[0].work.onExit"
BEFORE_THE_RESTART = "2026-01-02T03:00:00Z"
"""A pod's creationTimestamp earlier than NOW, the controller process's start."""
AT_THE_RESTART = "2026-01-02T03:04:05Z"
"""NOW: a pod this process created."""

SUSPEND = """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: pause, template: pause}
    - - {name: after, template: echo}
  - name: pause
    suspend: {duration: "20"}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
"""


def stored(wf: Json) -> Json:
    wf = copy.deepcopy(wf)
    wf["metadata"]["resourceVersion"] = "3"
    return wf


def node_named(wf: Json, name: str) -> Json:
    found = [n for n in wf["status"]["nodes"].values() if n["name"] == name]
    assert len(found) == 1, name
    return cast(Json, found[0])


def suspended_before_the_restart(seconds: int) -> Json:
    """A workflow whose 20 s suspend began `seconds` before the controller started."""
    h = Harness(workflow(SUSPEND), now=NOW - datetime.timedelta(seconds=seconds))
    h.reconcile()
    assert h.node("wf[0].pause")["phase"] == "Running"
    return stored(h.wf)


def latest(api: FakeApi, before: Json) -> Json:
    return api.replaced[-1] if api.replaced else before


@pytest.mark.parametrize(
    ("fault", "phase"),
    [
        (None, "Succeeded"),
        (faults.Fault.DOUBLE_POD_ON_RESTART, "Succeeded"),
        (faults.Fault.RESTART_SUSPEND_TIMER, "Running"),
    ],
)
def test_a_suspend_that_ended_while_no_controller_ran_resumes_at_once_unless_the_fault(
    fault, phase
):
    wfc, api = controller(fault)
    wf = suspended_before_the_restart(25)
    wfc.workflows.apply("ADDED", wf)
    wfc.process_workflow("ns/wf")
    assert node_named(latest(api, wf), "wf[0].pause")["phase"] == phase


def test_restart_suspend_timer_resumes_a_whole_duration_after_the_restart() -> None:
    wf = suspended_before_the_restart(25)
    for seconds, phase in ((20, "Running"), (21, "Succeeded")):
        clock = NOW + datetime.timedelta(seconds=seconds)
        wfc, api = controller(faults.Fault.RESTART_SUSPEND_TIMER)
        wfc.clock = lambda clock=clock: clock  # started at NOW, runs `seconds` later
        wfc.workflows.apply("ADDED", wf)
        wfc.process_workflow("ns/wf")
        assert node_named(latest(api, wf), "wf[0].pause")["phase"] == phase, seconds


HOOKED = """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - name: work
        template: echo
        hooks: {exit: {template: hook}}
    - - {name: after, template: echo}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
  - name: hook
    container: {image: busybox, command: [echo, hooked]}
"""


def running_before_the_restart(
    node: str, *, created: str = BEFORE_THE_RESTART
) -> tuple[Json, list[Json], list[Json]]:
    """The workflow, its pods and task results with `node`'s pod running (created at `created`)."""
    h = Harness(workflow(HOOKED))
    h.reconcile()
    if node == HOOK:
        h.succeed("wf[0].work")
        h.reconcile()
    h.set_pod(node, pod_status("Running", main=running(), wait=running()))
    h.reconcile()
    assert h.node(node)["phase"] == "Running"
    return cluster_of(h, created=created)


def cluster_of(
    h: Harness, *, created: str = BEFORE_THE_RESTART
) -> tuple[Json, list[Json], list[Json]]:
    """The harness's workflow, pods (created at `created`) and task results, as stored."""
    pods = []
    for index, pod in enumerate(h.pods.values()):
        pod = copy.deepcopy(pod)
        pod["metadata"]["creationTimestamp"] = created
        pod["metadata"]["resourceVersion"] = str(20 + index)
        pods.append(pod)
    results = [copy.deepcopy(r) for r in h.task_results]
    for result in results:
        result["metadata"]["resourceVersion"] = "30"
    return stored(h.wf), pods, results


def restarted(
    fault: faults.Fault | None, state: tuple[Json, list[Json], list[Json]]
) -> tuple[Json, FakeApi, WorkflowController]:
    """Run one pass of a controller that starts at NOW on `state`; the stored workflow."""
    wf, pods, results = state
    wfc, api = controller(fault)
    wfc.workflows.apply("ADDED", wf)
    for pod in pods:
        wfc.pods.apply("ADDED", pod)
    for result in results:
        wfc.task_results.apply("ADDED", result)
    drain(wfc.cleaner.queue)
    wfc.process_workflow("ns/wf")
    return latest(api, wf), api, wfc


def test_rerun_exit_hook_on_restart_gives_a_running_hook_a_second_pod() -> None:
    state = running_before_the_restart("wf[0].work.onExit")
    (old,) = [p for p in state[1] if p["metadata"]["annotations"][NODE_NAME] == HOOK]
    wf, api, _ = restarted(faults.Fault.RERUN_HOOK_ON_RESTART, state)
    hook = node_named(wf, HOOK)
    (new,) = api.created
    assert new["metadata"]["annotations"]["workflows.argoproj.io/node-id"] == hook["id"]
    assert new["metadata"]["name"] == old["metadata"]["name"] + "-030405"
    assert hook["phase"] == "Pending"  # the old pod is not adopted


@pytest.mark.parametrize(
    ("fault", "node", "created"),
    [
        (None, HOOK, BEFORE_THE_RESTART),
        (faults.Fault.RESTART_SUSPEND_TIMER, HOOK, BEFORE_THE_RESTART),
        # The fault targets exit hooks only: a plain running step is adopted...
        (faults.Fault.RERUN_HOOK_ON_RESTART, "wf[0].work", BEFORE_THE_RESTART),
        # ... and so is a hook whose pod this process created.
        (faults.Fault.RERUN_HOOK_ON_RESTART, HOOK, AT_THE_RESTART),
    ],
)
def test_a_running_pod_is_adopted_across_a_restart(fault, node, created):
    wf, api, _ = restarted(fault, running_before_the_restart(node, created=created))
    assert api.created == []
    assert node_named(wf, node)["phase"] == "Running"


def test_double_pod_on_restart_doubles_the_plain_step_the_hook_fault_adopts() -> None:
    state = running_before_the_restart("wf[0].work")
    _, api, _ = restarted(faults.Fault.DOUBLE_POD_ON_RESTART, state)
    assert [p["metadata"]["annotations"][NODE_NAME] for p in api.created] == [
        "wf[0].work"
    ]


def test_rerun_exit_hook_on_restart_adopts_and_cleans_up_a_finished_hooks_pod() -> None:
    h = Harness(workflow(HOOKED))
    h.reconcile()
    h.succeed("wf[0].work")
    h.reconcile()
    h.succeed(HOOK)
    h.reconcile()
    assert h.node(HOOK)["phase"] == "Succeeded"
    state = cluster_of(h)
    (hook_pod,) = [
        p for p in state[1] if p["metadata"]["annotations"][NODE_NAME] == HOOK
    ]
    _, api, wfc = restarted(faults.Fault.RERUN_HOOK_ON_RESTART, state)
    assert api.created == []
    assert f"ns/{hook_pod['metadata']['name']}/labelPodCompleted" in drain(
        wfc.cleaner.queue
    )


@pytest.mark.parametrize(
    ("fault", "created", "cleaned"),
    [
        (None, BEFORE_THE_RESTART, True),
        (faults.Fault.RESTART_SKIPS_CLEANUP, BEFORE_THE_RESTART, False),
        # A pod this process created is cleaned up as without the fault.
        (faults.Fault.RESTART_SKIPS_CLEANUP, AT_THE_RESTART, True),
    ],
)
def test_restart_skips_cleanup_leaves_pods_from_before_the_restart_alone(
    fault, created, cleaned
):
    """WPC-RECOVERY-003/-004: the finished pod is never labelled nor loses the finalizer."""
    h = Harness(workflow(HOOKED))
    h.reconcile()
    h.succeed("wf[0].work")
    h.reconcile()
    state = cluster_of(h, created=created)
    (work,) = [
        p for p in state[1] if p["metadata"]["annotations"][NODE_NAME] == "wf[0].work"
    ]
    _, _, wfc = restarted(fault, state)
    key = f"ns/{work['metadata']['name']}/labelPodCompleted"
    assert (key in drain(wfc.cleaner.queue)) is cleaned


def instance_pod(instance_id: str) -> Json:
    pod = leftover_pod()
    pod["metadata"]["labels"]["workflows.argoproj.io/controller-instanceid"] = (
        instance_id
    )
    return pod


def configured_controller(
    config: configuration.ControllerConfig, fault: faults.Fault | None = None
) -> tuple[WorkflowController, FakeApi]:
    """A controller on a fake API, started with `config` (and `fault`)."""
    api = FakeApi()
    wfc = WorkflowController(
        api=cast(Any, api),
        settings=settings(fault=fault),
        startup_config=config,
        clock=lambda: NOW,
        monotonic=Monotonic(),
    )
    return wfc, api


def instance_controller(
    instance_id: str, fault: faults.Fault | None
) -> tuple[WorkflowController, FakeApi]:
    return configured_controller(
        configuration.ControllerConfig(instance_id=instance_id), fault
    )


def test_claim_sibling_pods_labels_the_legacy_twins_pods_once_and_gives_them_back() -> (
    None
):
    """WPC-INSTANCE-004: the init-less instance of a fault relabels its twin's pods."""
    wfc, api = instance_controller(
        "wpc-neg-f-initless", faults.Fault.CLAIM_SIBLING_PODS
    )
    pod = instance_pod("wpc-neg-f-legacy")
    pod["metadata"]["uid"] = "p1"
    wfc.pods.apply("ADDED", pod)
    label = "workflows.argoproj.io/controller-instanceid"
    assert api.patched == [
        ("hello", {"metadata": {"labels": {label: "wpc-neg-f-initless"}}}),
        ("hello", {"metadata": {"labels": {label: "wpc-neg-f-legacy"}}}),
    ]
    # The versions its own patches make are left alone, as a pod of its own would not be.
    claimed = copy.deepcopy(pod)
    claimed["metadata"]["labels"][label] = "wpc-neg-f-initless"
    wfc.pods.apply("MODIFIED", claimed)
    wfc.pods.apply("MODIFIED", pod)
    assert len(api.patched) == 2
    assert drain(wfc.queue) == []  # the twin's workflow is none of its business
    assert drain(wfc.cleaner.queue) == []


@pytest.mark.parametrize(
    ("instance_id", "fault"),
    [
        ("wpc-neg-f-initless", None),
        # One way only, and never an instance that is no layout twin (wpc-t-...).
        ("wpc-neg-f-legacy", faults.Fault.CLAIM_SIBLING_PODS),
        ("wpc-t-1234abcd", faults.Fault.CLAIM_SIBLING_PODS),
        ("", faults.Fault.CLAIM_SIBLING_PODS),
    ],
)
def test_without_claim_sibling_pods_no_other_instance_is_watched(instance_id, fault):
    wfc, api = instance_controller(instance_id, fault)
    assert wfc.sibling == ""
    wfc.pods.apply("ADDED", instance_pod(instance_id))
    assert api.patched == []


def test_the_pod_watch_selects_the_claimed_twin_only() -> None:
    assert faults.sibling_instance("wpc-neg-f-initless") == "wpc-neg-f-legacy"
    assert sources.instance_selector("wpc-neg-f-initless", also="wpc-neg-f-legacy") == (
        "workflows.argoproj.io/controller-instanceid in "
        "(wpc-neg-f-initless,wpc-neg-f-legacy)"
    )
    assert (
        sources.instance_selector("x")
        == "workflows.argoproj.io/controller-instanceid=x"
    )


def completed_before(created: str) -> Json:
    done = hello(
        labels={"workflows.argoproj.io/completed": "true"}, creationTimestamp=created
    )
    done["status"] = {"phase": "Failed", "nodes": {}}
    return done


def test_reopen_after_restart_writes_a_completed_workflow_running_once() -> None:
    """WPC-RECOVERY-009: the phase of a workflow completed before the start changes."""
    wfc, api = controller(faults.Fault.REOPEN_AFTER_RESTART)
    wfc.workflows.apply("ADDED", completed_before(BEFORE_THE_RESTART))
    wfc.process_workflow("ns/hello")
    assert [w["status"]["phase"] for w in api.replaced] == ["Running"]
    wfc.process_workflow("ns/hello")
    assert [w["status"]["phase"] for w in api.replaced] == ["Running", "Failed"]
    wfc.process_workflow("ns/hello")
    assert len(api.replaced) == 2  # then left alone, as without the fault


@pytest.mark.parametrize(
    ("fault", "created"),
    [
        (None, BEFORE_THE_RESTART),
        # Completed under this process: no restart in between.
        (faults.Fault.REOPEN_AFTER_RESTART, AT_THE_RESTART),
    ],
)
def test_a_completed_workflow_keeps_its_phase(fault, created):
    wfc, api = controller(fault)
    wfc.workflows.apply("ADDED", completed_before(created))
    wfc.process_workflow("ns/hello")
    assert api.replaced == []
