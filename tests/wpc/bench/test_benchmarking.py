"""We test these aspects of one layout's submission loop, without a cluster
(fake API clients; events are fed straight to the loop, no watch threads):
submissions keep `inflight` workflows in flight; a pod event records each
milestone's first arrival only; a finished workflow leaves the flight and is
collected into a sample from its pod, workflow and main log; a failed phase
and a pod without markers count as failures with their evidence; a workflow
nobody picks up stops the run with a WaitTimeout naming the instance, and one
that never finishes counts as a failure.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.errors import WaitTimeout
from conformance.harness.cluster import kube
from conformance.harness.instances.layouts import Instance
from wpc.bench import benchmarking
from wpc.bench import moments
from wpc.bench import streaming
from wpc.bench.settings import BenchSettings


class FakeWorkflows:
    def __init__(self) -> None:
        self.namespace = "ns"
        self.labels = {kube.SESSION: "s1", kube.MANAGED_BY: "wpc"}
        self.instance = Instance(
            layout="legacy", instance_id="wpc-bench-legacy", namespace="c"
        )
        self.submitted: list[dict[str, Any]] = []

    def submit(self, manifest: dict[str, Any]) -> str:
        self.submitted.append(manifest)
        return f"wf-{len(self.submitted)}"


class FakeCore:
    def __init__(self, pod: dict[str, Any], log: str) -> None:
        self.pod = pod
        self.log = log

    def list_namespaced_pod(self, namespace, **_: Any):
        return SimpleNamespace(data=json.dumps({"items": [self.pod]}))

    def read_namespaced_pod(self, name, namespace, **_: Any):
        return SimpleNamespace(data=json.dumps(self.pod))

    def read_namespaced_pod_log(self, name, namespace, **_: Any) -> str:
        return self.log


def _pod(workflow: str, **status: Any) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"{workflow}-pod",
            "labels": {"workflows.argoproj.io/workflow": workflow},
            "creationTimestamp": "2026-11-22T02:38:20Z",
        },
        "status": status,
    }


def _event(kind: str, obj: dict[str, Any], boot: float) -> streaming.Event:
    return streaming.Event(kind=kind, type="MODIFIED", obj=obj, boot=boot, wall=0.0)


def _workflow(name: str, phase: str) -> dict[str, Any]:
    node = {"type": "Pod", "phase": phase, "finishedAt": "2026-11-22T02:38:24Z"}
    return {
        "metadata": {"name": name},
        "status": {"phase": phase, "nodes": {"n": node}},
    }


def _run(log: str = "", **settings: Any) -> benchmarking._Run:
    clients = SimpleNamespace(core=FakeCore(_pod("wf-1"), log))
    return benchmarking._Run(
        clients,  # type: ignore[arg-type]
        FakeWorkflows(),  # type: ignore[arg-type]
        image="img:1",
        settings=BenchSettings(**{"workflows": 3, "inflight": 2, **settings}),
    )


def test_a_pod_event_records_first_arrivals_only():
    run = _run()
    run._submit()
    scheduled = {
        "conditions": [
            {
                "type": "PodScheduled",
                "status": "True",
                "lastTransitionTime": "2026-11-22T02:38:20Z",
            }
        ]
    }
    run._on_pod(_event("pod", _pod("wf-1"), boot=10.0))
    run._on_pod(_event("pod", _pod("wf-1", **scheduled), boot=11.0))
    run._on_pod(_event("pod", _pod("wf-1", **scheduled), boot=12.0))
    flight = run.flying["wf-1"]
    assert flight.seen_boot == {"created": 10.0, "scheduled": 11.0}
    assert flight.stamps["scheduled"] == "2026-11-22T02:38:20Z"
    assert flight.pod_name == "wf-1-pod"


def test_pods_of_other_workflows_are_ignored():
    run = _run()
    run._submit()
    run._on_pod(_event("pod", _pod("someone-else"), boot=10.0))
    assert run.flying["wf-1"].seen_boot == {}


def test_a_finished_workflow_is_collected_into_a_sample():
    epoch = moments.boot_epoch()
    uptime = moments.boottime()
    log = (
        f"wpc-bench-start uptime={uptime:.2f} wall={int(epoch + uptime)} status_mtime=none\n"
        f"wpc-bench-end uptime={uptime + 0.01:.2f}\n"
    )
    run = _run(log)
    run.result.boot_epoch = epoch
    run._submit()
    run._on_workflow(_event("workflow", _workflow("wf-1", "Succeeded"), boot=20.0))
    assert "wf-1" not in run.flying
    run._collect(run.finished.pop())
    assert [s.workflow for s in run.result.samples] == ["wf-1"]
    assert run.result.samples[0].phases["handshake_ready"] is None
    assert run.result.failures == []
    assert run.result.last_finish_boot == 20.0


def test_a_failed_workflow_is_a_failure_with_its_message():
    run = _run()
    run._submit()
    failed = _workflow("wf-1", "Failed")
    failed["status"]["message"] = "boom"
    run._on_workflow(_event("workflow", failed, boot=20.0))
    run._collect(run.finished.pop())
    assert run.result.failures[0]["reason"] == "workflow phase Failed: boom"


def test_a_pod_without_markers_is_a_failure_naming_the_log():
    run = _run("hello\n")
    run._submit()
    run._on_workflow(_event("workflow", _workflow("wf-1", "Succeeded"), boot=20.0))
    run._collect(run.finished.pop())
    assert (
        "expected exactly one 'wpc-bench-start' line"
        in run.result.failures[0]["reason"]
    )


def test_a_workflow_nobody_picks_up_stops_the_run():
    run = _run(picked_up=5.0)
    run._submit()
    run.flying["wf-1"].submitted_boot = moments.boottime() - 6.0
    with pytest.raises(
        WaitTimeout, match="instance ID wpc-bench-legacy to pick up wf-1"
    ):
        run._check_deadlines()


def test_a_workflow_that_never_finishes_is_a_failure():
    run = _run()
    run._submit()
    run.flying["wf-1"].phase = "Running"
    run.flying["wf-1"].submitted_boot = moments.boottime() - 10_000.0
    run._check_deadlines()
    assert (
        "not finished within workflow_completed=180s"
        in run.result.failures[0]["reason"]
    )
    assert run.flying == {}


def test_the_deadline_is_the_nearest_flight_limit():
    run = _run(picked_up=5.0, watch_window=10.0)
    run._submit()
    assert 4.0 < run._next_deadline() <= 5.0
