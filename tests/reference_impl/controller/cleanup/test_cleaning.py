"""We test these aspects of the pod clean-up queue's actions (fake API, no cluster):

- SIGTERM and SIGKILL reach the running containers of a pod the cache no
  longer holds (it drops pods once they are labelled completed, which a
  shutdown does while their containers still run): the pod is read from the API;
- the controller's own aux container (wait, supervisor) is never signalled;
- terminating a Pending pod the cache dropped deletes it (read from the API);
- other actions for a pod the cache does not hold are dropped;
- a pod that is gone from the API too is not an error;
- a `cleanup` fault of commission changes the patch sent (`finalizers-all-dropped`,
  `label-adds-finalizer`).
"""

from __future__ import annotations

from typing import Any

from reference_impl.controller.cleanup import decisions
from reference_impl.controller.cleanup.cleaning import PodCleaner

Json = dict[str, Any]


def running_pod() -> Json:
    return {
        "metadata": {"name": "p", "namespace": "ns", "annotations": {}},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "volumeMounts": [{"name": "v", "mountPath": "/var/run/argo"}],
                }
            ]
        },
        "status": {
            "phase": "Running",
            "containerStatuses": [{"name": "main", "state": {"running": {}}}],
        },
    }


class FakePodApi:
    def __init__(self, pods: dict[str, Json]) -> None:
        self.pods = pods
        self.execs: list[tuple[str, list[str]]] = []
        self.patches: list[Json] = []

    def get_pod(self, namespace: str, name: str) -> Json | None:
        return self.pods.get(f"{namespace}/{name}")

    def patch_pod(self, namespace: str, name: str, patch: Json) -> Json:
        self.patches.append(patch)
        return {}

    def delete_pod(self, namespace: str, name: str, **_: Any) -> None:
        raise AssertionError("not expected")

    def exec_in_container(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> str:
        self.execs.append((container, command))
        return "killing 1 with 9"


def cleaner(api: FakePodApi) -> PodCleaner:
    return PodCleaner(
        api=api, get_pod=lambda _key: None, grace_period_seconds=lambda: None
    )


def test_kill_reaches_a_pod_that_left_the_cache():
    api = FakePodApi({"ns/p": running_pod()})
    cleaner(api).process(f"ns/p/{decisions.Action.KILL.value}")
    assert api.execs == [("main", ["/var/run/argo/argoexec", "kill", "9", "1"])]


def test_the_aux_container_is_not_signalled():
    pod = running_pod()
    pod["status"]["containerStatuses"].append(
        {"name": "wait", "state": {"running": {}}}
    )
    api = FakePodApi({"ns/p": pod})
    cleaner(api).process(f"ns/p/{decisions.Action.KILL.value}")
    assert [container for container, _ in api.execs] == ["main"]


def test_terminating_an_uncached_pending_pod_deletes_it():
    pending = running_pod()
    pending["status"] = {"phase": "Pending"}
    api = FakePodApi({"ns/p": pending})
    deleted = []
    api.delete_pod = lambda namespace, name, **_: deleted.append(name)  # type: ignore[method-assign]
    clean = cleaner(api)
    clean.process(f"ns/p/{decisions.Action.TERMINATE.value}")
    key = clean.queue.get(timeout=0)
    assert key == f"ns/p/{decisions.Action.DELETE.value}"
    clean.process(key)
    assert deleted == ["p"]


def test_other_actions_for_an_uncached_pod_are_dropped():
    api = FakePodApi({"ns/p": running_pod()})
    cleaner(api).process(f"ns/p/{decisions.Action.LABEL_COMPLETED.value}")
    assert api.patches == []
    assert api.execs == []


def test_a_pod_gone_from_the_api_too_is_no_error():
    api = FakePodApi({})
    cleaner(api).process(f"ns/p/{decisions.Action.TERMINATE.value}")
    assert api.execs == []


def test_a_cleanup_fault_changes_the_patch_sent():
    from reference_impl import commission

    pod = running_pod()
    pod["metadata"]["finalizers"] = ["workflows.argoproj.io/status", "wpc.dev/keep"]
    pod["metadata"]["resourceVersion"] = "3"
    api = FakePodApi({})
    key = f"ns/p/{decisions.Action.REMOVE_FINALIZER.value}"
    PodCleaner(
        api=api, get_pod=lambda _key: pod, grace_period_seconds=lambda: None
    ).process(key)
    PodCleaner(
        api=api,
        get_pod=lambda _key: pod,
        grace_period_seconds=lambda: None,
        fault=commission.load()["finalizers-all-dropped"],
    ).process(key)
    assert [p["metadata"]["finalizers"] for p in api.patches] == [["wpc.dev/keep"], []]


def test_terminate_with_sigkill_sends_sigkill_first():
    """The negative control for WPC-KILL-009: no SIGTERM before the SIGKILL."""
    from reference_impl.controller.faults import Fault

    def first_command(fault: Fault | None) -> list[str]:
        api = FakePodApi({"ns/p": running_pod()})
        PodCleaner(
            api=api,
            get_pod=lambda _key: None,
            grace_period_seconds=lambda: None,
            deliberate=fault,
        ).process(f"ns/p/{decisions.Action.TERMINATE.value}")
        ((container, command),) = api.execs
        assert container == "main"
        return command

    assert first_command(None)[2] == "15"
    assert first_command(Fault.TERMINATE_WITH_SIGKILL) == [
        "/var/run/argo/argoexec",
        "kill",
        "9",
        "1",
    ]


def test_the_deliberate_fault_reaches_the_kill_command():
    from reference_impl.controller.faults import Fault

    pod = running_pod()
    pod["spec"]["containers"].append({"name": "injected"})
    pod["status"]["containerStatuses"] = [
        {"name": "injected", "state": {"running": {}}}
    ]
    api = FakePodApi({"ns/p": pod})
    PodCleaner(
        api=api,
        get_pod=lambda _key: None,
        grace_period_seconds=lambda: None,
        deliberate=Fault.KILL_DEFAULT_NOT_PID1,
    ).process(f"ns/p/{decisions.Action.TERMINATE.value}")
    assert api.execs == [("injected", ["/bin/sh", "-c", "kill -15 -1"])]


def test_label_adds_finalizer_puts_the_status_finalizer_on_a_pod_labelled_completed():
    """Finalizer off: the label patch, which had none, brings it (WPC-FINALIZER-002)."""
    from reference_impl import commission

    pod = running_pod()
    pod["metadata"]["resourceVersion"] = "3"
    api = FakePodApi({})
    clean = PodCleaner(
        api=api,
        get_pod=lambda _key: pod,
        grace_period_seconds=lambda: None,
        fault=commission.load()["label-adds-finalizer"],
    )
    clean.process(f"ns/p/{decisions.Action.LABEL_COMPLETED.value}")
    assert [p["metadata"].get("finalizers") for p in api.patches] == [
        ["workflows.argoproj.io/status"]
    ]
