"""We test these aspects of the controller-wide `parallelism` limit (runtime/throttling.py),
first against a fake cache, then through the controller and the fake API of
test_controlling, no cluster:

- a workflow not yet started is admitted only while fewer than the limit run (Running
  ones in the cache plus those admitted and not yet stored Running); 0 is no limit;
- waiting workflows are admitted oldest first (creationTimestamp, then name): when
  a younger one asks, the older one takes the slot and is queued;
- two workers asking at once never both take the last slot;
- a Running workflow, and one being terminated, are always admitted;
- one held back with no phase is written `Pending` with upstream's message and gets
  no pod; one already Pending, or Running, gets no status change;
- a completed or deleted workflow frees its slot and the waiting ones are queued; a
  changed limit in the ConfigMap queues them too and applies at once;
- an admitted `Pending` workflow starts like a new one (marked Running, message gone);
- the fault `throttle-running` (upstream #14123): only the workflows labelled
  Running at start-up, and admissions under a limit, hold slots, so a Running
  workflow without the label, or started while there was no limit, is held back
  (no status change, no reconciliation) while the limit is reached; without the
  fault the label plays no part;
- the ConfigMap's `parallelism` is a whole number, at least 0 (absent: 0); anything
  else is a ConfigError naming the key.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.config import configuration
from reference_impl.controller.runtime import throttling
from reference_impl.controller.runtime.controlling import WorkflowController
from reference_impl.controller.runtime.throttling import Throttle
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.runtime.test_controlling import FakeApi
from tests.reference_impl.controller.runtime.test_controlling import (
    configured_controller,
)
from tests.reference_impl.controller.runtime.test_controlling import drain

Json = dict[str, Any]
PHASE_LABEL = "workflows.argoproj.io/phase"
COMPLETED_LABEL = "workflows.argoproj.io/completed"


def wf(
    name: str,
    phase: str = "",
    *,
    created: str = "2026-01-02T03:00:00Z",
    labelled: bool = True,
    **spec: Any,
) -> Json:
    """A one-pod workflow `ns/<name>`; `labelled` gives a phase its phase label."""
    labels = {}
    if phase:
        labels[COMPLETED_LABEL] = "true" if phase == "Succeeded" else "false"
        if labelled:
            labels[PHASE_LABEL] = phase
    workflow: Json = {
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "resourceVersion": "1",
            "creationTimestamp": created,
            "labels": labels,
        },
        "spec": {
            "entrypoint": "main",
            "templates": [
                {"name": "main", "container": {"image": "busybox", "command": ["true"]}}
            ],
            **spec,
        },
    }
    if phase:
        workflow["status"] = {"phase": phase}
    return workflow


# -- the throttle alone, over a fake cache ---------------------------------------------


class FakeCache:
    def __init__(self, *workflows: Json) -> None:
        self.store = {f"ns/{w['metadata']['name']}": w for w in workflows}

    def put(self, workflow: Json) -> None:
        self.store[f"ns/{workflow['metadata']['name']}"] = workflow

    def items(self) -> list[Json]:
        return [copy.deepcopy(w) for w in self.store.values()]


class Limit:
    def __init__(self, value: int) -> None:
        self.value = value

    def __call__(self) -> int:
        return self.value


def throttle(
    cache: FakeCache, limit: int, *, label_seeded: bool = False
) -> tuple[Throttle, list[str], Limit]:
    queued: list[str] = []
    current = Limit(limit)
    return (
        Throttle(
            cache=cache, limit=current, enqueue=queued.append, label_seeded=label_seeded
        ),
        queued,
        current,
    )


def admit(t: Throttle, cache: FakeCache, name: str) -> bool:
    return t.admit(f"ns/{name}", cache.store[f"ns/{name}"])


def test_a_new_workflow_waits_while_the_limit_is_reached() -> None:
    cache = FakeCache(wf("a", "Running"), wf("b", "Running"), wf("c"))
    assert not admit(throttle(cache, 2)[0], cache, "c")
    assert admit(throttle(cache, 3)[0], cache, "c")
    assert admit(throttle(cache, 0)[0], cache, "c")  # 0: no limit


def test_completed_workflows_take_no_slot() -> None:
    done = wf("a", "Succeeded")
    unlabelled_done = wf("b", "Failed", labelled=False)
    cache = FakeCache(done, unlabelled_done, wf("c"))
    assert admit(throttle(cache, 1)[0], cache, "c")


def test_waiting_workflows_are_admitted_oldest_first() -> None:
    cache = FakeCache(
        wf("young", created="2026-01-02T03:00:09Z"),
        wf("b-tie", created="2026-01-02T03:00:05Z"),
        wf("a-tie", created="2026-01-02T03:00:05Z"),
        wf("old", created="2026-01-02T03:00:01Z"),
    )
    t, queued, _ = throttle(cache, 2)
    # The youngest asks first: the two oldest take the slots and are queued.
    assert not admit(t, cache, "young")
    assert queued == ["ns/old", "ns/a-tie"]
    assert admit(t, cache, "old")
    assert admit(t, cache, "a-tie")
    assert not admit(t, cache, "b-tie")


def test_an_admitted_workflow_holds_its_slot_before_it_is_stored_running() -> None:
    cache = FakeCache(wf("a"), wf("b", created="2026-01-02T03:00:01Z"))
    t, _, _ = throttle(cache, 1)
    assert admit(t, cache, "a")
    # `a` is still phase-less in the cache: only the admission record counts it.
    assert not admit(t, cache, "b")
    cache.put(wf("a", "Running"))
    assert not admit(t, cache, "b")
    cache.put(wf("a", "Succeeded"))
    assert admit(t, cache, "b")


def test_two_workers_never_both_take_the_last_slot() -> None:
    names = [f"w{i}" for i in range(8)]
    cache = FakeCache(*(wf(n) for n in names))
    t, _, _ = throttle(cache, 1)
    start = threading.Barrier(len(names))
    results: dict[str, bool] = {}

    def ask(name: str) -> None:
        start.wait()
        results[name] = admit(t, cache, name)

    threads = [threading.Thread(target=ask, args=(n,)) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Whoever asked first, only the oldest (the first by name on a tie) is admitted.
    assert [n for n, ok in results.items() if ok] == ["w0"]


def test_running_and_terminating_workflows_are_always_admitted() -> None:
    cache = FakeCache(
        wf("a", "Running"),
        wf("b", "Running", labelled=False),
        wf("c", shutdown="Terminate"),
    )
    t, _, _ = throttle(cache, 1)
    assert admit(t, cache, "a")
    assert admit(t, cache, "b")
    assert admit(t, cache, "c")


def test_release_and_wake_queue_the_waiting_workflows() -> None:
    cache = FakeCache(
        wf("a", "Running"), wf("b"), wf("c", "Pending"), wf("d", "Succeeded")
    )
    t, queued, limit = throttle(cache, 1)
    t.release("ns/a")
    assert queued == ["ns/b", "ns/c"]
    queued.clear()
    limit.value = 0
    t.release("ns/a")
    assert queued == []  # no limit: nothing waits


def test_postponed_marks_only_a_workflow_without_a_phase() -> None:
    changed = throttling.postponed(wf("a"))
    assert changed is not None
    assert changed["status"] == {
        "phase": "Pending",
        "message": "Workflow processing has been postponed because too many "
        "workflows are already running",
    }
    assert changed["metadata"]["labels"] == {
        PHASE_LABEL: "Pending",
        COMPLETED_LABEL: "false",
    }
    assert throttling.postponed(wf("a", "Pending")) is None
    assert throttling.postponed(wf("a", "Running")) is None


def test_throttle_running_seeds_the_slots_from_the_phase_label() -> None:
    cache = FakeCache(
        wf("labelled", "Running", created="2026-01-02T03:00:01Z"),
        wf("unlabelled", "Running", labelled=False, created="2026-01-02T03:00:02Z"),
    )
    faulty, _, _ = throttle(cache, 1, label_seeded=True)
    faulty.seed()
    assert admit(faulty, cache, "labelled")
    assert not admit(faulty, cache, "unlabelled")
    # Without the fault the label plays no part: status.phase says Running.
    correct, _, _ = throttle(cache, 1)
    correct.seed()
    assert admit(correct, cache, "unlabelled")


def test_throttle_running_holds_back_what_started_with_no_limit() -> None:
    cache = FakeCache(
        wf("a", created="2026-01-02T03:00:01Z"), wf("b", created="2026-01-02T03:00:02Z")
    )
    faulty, queued, limit = throttle(cache, 0, label_seeded=True)
    faulty.seed()
    assert admit(faulty, cache, "a")
    assert admit(faulty, cache, "b")
    cache.put(wf("a", "Running", created="2026-01-02T03:00:01Z"))
    cache.put(wf("b", "Running", created="2026-01-02T03:00:02Z"))
    limit.value = 1
    faulty.wake()
    assert queued == ["ns/a", "ns/b"]  # Running ones wait too under the fault
    assert not admit(faulty, cache, "b")  # the older Running `a` takes the slot
    assert admit(faulty, cache, "a")
    # Once `a` completes, `b` gets the slot.
    cache.put(wf("a", "Succeeded"))
    faulty.release("ns/a")
    assert admit(faulty, cache, "b")


# -- through the controller ----------------------------------------------------------


def configmap(parallelism: int, version: str = "3") -> Json:
    return {
        "metadata": {
            "name": "workflow-controller-configmap",
            "namespace": "argo",
            "resourceVersion": version,
        },
        "data": {"parallelism": str(parallelism)},
    }


def controller(
    parallelism: int, fault: faults.Fault | None = None
) -> tuple[WorkflowController, FakeApi]:
    return configured_controller(
        configuration.ControllerConfig(parallelism=parallelism), fault
    )


def stored(api: FakeApi, name: str) -> Json:
    return [w for w in api.replaced if w["metadata"]["name"] == name][-1]


def pods_of(api: FakeApi, name: str) -> list[str]:
    return [
        p["metadata"]["name"]
        for p in api.created
        if p["metadata"]["labels"]["workflows.argoproj.io/workflow"] == name
    ]


def started(wfc: WorkflowController, api: FakeApi, name: str, **meta: Any) -> Json:
    """Add a new workflow and run its first pass; return what was stored."""
    workflow = wf(name, **meta)
    wfc.workflows.apply("ADDED", workflow)
    wfc.process_workflow(f"ns/{name}")
    return stored(api, name)


def finish(wfc: WorkflowController, api: FakeApi, name: str) -> None:
    """Make the workflow's pod succeed and reconcile it to completion."""
    wfc.workflows.apply("MODIFIED", stored(api, name))
    pod = copy.deepcopy(
        next(p for p in api.created if p["metadata"]["name"] in pods_of(api, name))
    )
    pod["metadata"]["resourceVersion"] = "7"
    pod["status"] = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    wfc.pods.apply("ADDED", pod)
    drain(wfc.queue)
    wfc.process_workflow(f"ns/{name}")
    assert stored(api, name)["status"]["phase"] == "Succeeded"


def test_a_postponed_workflow_is_pending_with_upstreams_message_and_no_pod() -> None:
    wfc, api = controller(1)
    assert started(wfc, api, "first")["status"]["phase"] == "Running"
    second = started(wfc, api, "second", created="2026-01-02T03:00:01Z")
    assert second["status"] == {
        "phase": "Pending",
        "message": throttling.POSTPONED_MESSAGE,
    }
    assert second["metadata"]["labels"][PHASE_LABEL] == "Pending"
    assert pods_of(api, "second") == []
    # Its next pass changes nothing: no second write.
    writes = len(api.replaced)
    wfc.process_workflow("ns/second")
    assert len(api.replaced) == writes


def test_a_completed_workflow_frees_its_slot_for_the_waiting_one() -> None:
    wfc, api = controller(1)
    started(wfc, api, "first")
    started(wfc, api, "second", created="2026-01-02T03:00:01Z")
    drain(wfc.queue)
    finish(wfc, api, "first")
    assert drain(wfc.queue) == ["ns/second"]
    wfc.process_workflow("ns/second")
    second = stored(api, "second")
    assert second["status"]["phase"] == "Running"
    assert "message" not in second["status"]
    assert pods_of(api, "second") == ["second"]


def test_a_deleted_workflow_frees_its_slot() -> None:
    wfc, api = controller(1)
    started(wfc, api, "first")
    started(wfc, api, "second", created="2026-01-02T03:00:01Z")
    drain(wfc.queue)
    wfc.workflows.apply("DELETED", stored(api, "first"))
    assert drain(wfc.queue) == ["ns/second"]
    wfc.process_workflow("ns/second")
    assert stored(api, "second")["status"]["phase"] == "Running"


def test_a_raised_limit_applies_at_once() -> None:
    wfc, api = controller(1)
    started(wfc, api, "first")
    started(wfc, api, "second", created="2026-01-02T03:00:01Z")
    started(wfc, api, "third", created="2026-01-02T03:00:02Z")
    drain(wfc.queue)
    wfc.configmaps.apply("ADDED", configmap(2))
    assert wfc.config().parallelism == 2
    assert drain(wfc.queue) == ["ns/second", "ns/third"]
    wfc.process_workflow("ns/third")  # the older `second` takes the one free slot
    assert stored(api, "third")["status"]["phase"] == "Pending"
    assert drain(wfc.queue) == ["ns/second"]
    wfc.process_workflow("ns/second")
    assert stored(api, "second")["status"]["phase"] == "Running"
    wfc.configmaps.apply("MODIFIED", configmap(0, version="4"))
    assert drain(wfc.queue) == ["ns/third"]
    wfc.process_workflow("ns/third")
    assert stored(api, "third")["status"]["phase"] == "Running"


def running_unlabelled(
    fault: faults.Fault | None,
) -> tuple[WorkflowController, FakeApi]:
    """`first` and `second` started with no limit; `second` then lost its phase label.

    A controller with limit 1 starts (the upstream #14123 scene): returns it after
    one pass over `second`.
    """
    wfc, api = controller(0)
    started(wfc, api, "first")
    started(wfc, api, "second", created="2026-01-02T03:00:01Z")
    second = copy.deepcopy(stored(api, "second"))
    del second["metadata"]["labels"][PHASE_LABEL]
    restarted, new_api = controller(1, fault)
    restarted.workflows.apply("ADDED", stored(api, "first"))
    restarted.workflows.apply("ADDED", second)
    restarted.throttle.seed()
    restarted.process_workflow("ns/second")
    return restarted, new_api


def test_a_running_workflow_is_reconciled_whatever_the_limit_or_its_labels() -> None:
    _restarted, api = running_unlabelled(None)
    assert pods_of(api, "second") == ["second"]  # reconciled: its pod is made


def test_throttle_running_holds_back_a_running_workflow_without_the_label() -> None:
    restarted, api = running_unlabelled(faults.Fault.THROTTLE_RUNNING)
    assert api.replaced == []
    assert api.created == []
    restarted.process_workflow("ns/first")  # the labelled one holds the slot
    assert pods_of(api, "first") == ["first"]


def test_an_invalid_limit_is_a_config_error_naming_the_key() -> None:
    assert configuration.parse({}).parallelism == 0
    assert configuration.parse({"parallelism": "3"}).parallelism == 3
    assert configuration.parse({"config": "parallelism: 2\n"}).parallelism == 2
    for bad in ("-1", "'3'", "1.5", "true", "[1]"):
        with pytest.raises(errors.ConfigError, match="parallelism"):
            configuration.parse({"parallelism": bad})
