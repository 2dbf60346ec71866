"""We test these aspects of the controller around one reconciliation, against a fake API:
persisting and pod creation, clean-up after persist (label + finalizer removal), the
finalizer paths for deleted workflows, orphaned and deleting pods (and the leave-finalizer
fault), re-synchronisation of a completed workflow's leftover pods after downtime,
terminating containers, and the layout switch with and without keep-old-layout."""

from __future__ import annotations

import copy
from typing import Any
from typing import cast

from reference_impl.controller import faults
from reference_impl.controller.cleanup import decisions
from reference_impl.controller.config import configuration
from reference_impl.controller.machinery.queueing import WorkQueue
from reference_impl.controller.runtime.controlling import WorkflowController
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import terminated

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
