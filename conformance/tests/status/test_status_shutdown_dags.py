"""StatusShutdownDags: a shutdown ends a DAG's retried task, and Stop runs a DAG exit handler.

We test these aspects (WPC-STATUS-014) in DAG workflows, where the DAG itself
fails as soon as the shutdown is seen and is not executed again:

- a DAG task `a` with `retryStrategy` whose attempt `a(0)` runs a long
  command, shut down with `Stop` on one workflow and `Terminate` on another
  once that attempt's main runs and its executor has created its task result:
  each workflow ends `Failed` with `Stopped with strategy '<S>'`, the attempt
  ends `Failed` or `Error`, the Retry node of `a` (the node of the task whose
  pod ran) ends `Failed` or `Error` too, no node is still `Pending` or
  `Running` in the completed workflow, there is no attempt `a(1)` and each
  workflow had exactly one pod, also over several observations after it
  completed;
- a workflow whose exit handler is a DAG of two tasks, `second` depending on
  `first`, stopped with `Stop` while its task `a` runs: it ends `Failed` with
  `Stopped with strategy 'Stop'`, both exit-handler tasks run (`Succeeded`,
  one pod each, labelled `workflows.argoproj.io/on-exit: "true"`), the exit
  handler's DAG node ends `Succeeded`, and the
  workflow had exactly three pods.

Upstream bugs these catch (conformance/spec/history.yaml): before v4.1.0 the
Retry node stayed `Running` in the completed workflow (fix 4cb7eb4e: the
attempt was failed by the shutdown before its task result was in, so the
Retry node had nothing fulfilled to follow, and the failed DAG never looked at
it again); before v4.1.0 and v4.0.8 a DAG exit handler was failed by Stop's
fast path at once, so `second` never ran (fix 0fac33e1).

Waiting for the attempt's task result (WPC-RESULT-001/002: the executor creates
it when the aux container starts) before the shutdown makes the first case
deterministic: the controller then already knows that outputs are pending.
Pods are recorded from before the submission. Matrix: legacy and initless.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.inspecting import recording

ON_EXIT = "workflows.argoproj.io/on-exit"
STRATEGIES = ("Stop", "Terminate")
ACTIVE = ("Pending", "Running")


def running_with_result(
    kube_clients: kube.Clients, workflows: Any, name: str, display_name: str
) -> bool | NotYet:
    """Whether node `display_name` is Running, its main runs and its task result exists."""
    nodes = (workflows.get(name).get("status") or {}).get("nodes") or {}
    node = next(
        (n for n in nodes.values() if n.get("displayName") == display_name), None
    )
    pods = kube_clients.core.list_namespaced_pod(
        workflows.namespace, label_selector=f"{contract.WORKFLOW_LABEL}={name}"
    ).items
    running = [
        p.metadata.name
        for p in pods
        for s in p.status.container_statuses or []
        if s.name == contract.MAIN and s.state.running
    ]
    results = kube_clients.custom.list_namespaced_custom_object(
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        workflows.namespace,
        contract.TASK_RESULTS,
        label_selector=f"{contract.WORKFLOW_LABEL}={name}",
    )["items"]
    reported = [r["metadata"]["name"] for r in results]
    if node and node.get("phase") == "Running" and running and node["id"] in reported:
        return True
    return NotYet(
        f"{name}: node {display_name} {node and node.get('phase')}, "
        f"running mains {running}, task results {reported}"
    )


def shut_down(kube_clients: kube.Clients, namespace: str, name: str, how: str) -> None:
    kube_clients.custom.patch_namespaced_custom_object(
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        namespace,
        contract.WORKFLOWS,
        name,
        {"spec": {"shutdown": how}},
    )


@pytest.mark.conformance(short_name="StatusShutdownDags", clauses=["WPC-STATUS-014"])
def test_a_shutdown_ends_the_retry_node_of_a_dag_task_whose_attempt_ran(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        names = {s: workflows.submit(manifest()) for s in STRATEGIES}
        for strategy, name in names.items():
            until(
                functools.partial(
                    running_with_result, kube_clients, workflows, name, "a(0)"
                ),
                timeout=timeouts.user_command_started,
                interval=timeouts.poll_interval,
                describe=f"attempt a(0) of {name} to run and report",
            )
            shut_down(kube_clients, namespace, name, strategy)
        done = {s: workflows.wait_completed(n) for s, n in names.items()}
        for strategy, workflow in done.items():
            status = workflow["status"]
            nodes = {n["displayName"]: n for n in status["nodes"].values()}
            where = f"{strategy} ({workflow['metadata']['name']})"
            observations.record(
                f"{strategy}.workflow", [status["phase"], status.get("message")]
            )
            observations.record(
                f"{strategy}.retryNodeCompleted",
                nodes["a"]["phase"] in contract.COMPLETED,
            )
            assert (status["phase"], status.get("message")) == (
                "Failed",
                f"Stopped with strategy '{strategy}'",
            ), where
            assert nodes["a(0)"]["phase"] in {"Failed", "Error"}, (
                f"{where}: a(0) {nodes['a(0)']}"
            )
            retry = nodes["a"]
            assert retry["type"] == "Retry", f"{where}: a {retry}"
            assert retry["phase"] in {"Failed", "Error"}, (
                f"{where}: the Retry node of task a is {retry['phase']} "
                f"({retry.get('message', '')!r}) in the completed workflow"
            )
            still = {k: n["phase"] for k, n in nodes.items() if n["phase"] in ACTIVE}
            assert not still, f"{where}: nodes not completed: {still}"
            assert "a(1)" not in nodes, f"{where}: a second attempt {nodes['a(1)']}"
        recording.settle_pod_counts(recorder, {n: 1 for n in names.values()}, timeouts)


@pytest.mark.conformance(short_name="StatusShutdownDags", clauses=["WPC-STATUS-014"])
def test_stop_runs_every_task_of_a_dag_exit_handler(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        name = workflows.submit(manifest("status-shutdown-dags-exit.yaml"))
        until(
            functools.partial(running_with_result, kube_clients, workflows, name, "a"),
            timeout=timeouts.user_command_started,
            interval=timeouts.poll_interval,
            describe=f"task a of {name} to run and report",
        )
        shut_down(kube_clients, namespace, name, "Stop")
        workflow = workflows.wait_completed(name)
        status = workflow["status"]
        observations.record("workflow", [status["phase"], status.get("message")])
        assert (status["phase"], status.get("message")) == (
            "Failed",
            "Stopped with strategy 'Stop'",
        )
        nodes = {n["name"]: n for n in status["nodes"].values()}
        handler = nodes.get(f"{name}.onExit")
        assert handler is not None, f"no exit handler node: {sorted(nodes)}"
        tasks = {
            n["displayName"]: n
            for n in nodes.values()
            if n.get("boundaryID") == handler["id"]
        }
        phases = {t: (tasks.get(t) or {}).get("phase") for t in ("first", "second")}
        observations.record("onExit", [handler["type"], handler["phase"], phases])
        assert phases == {"first": "Succeeded", "second": "Succeeded"}, (
            f"exit handler tasks under Stop: {phases}; handler {handler['phase']} "
            f"({handler.get('message', '')!r})"
        )
        assert (handler["type"], handler["phase"]) == ("DAG", "Succeeded"), handler
        recording.settle_pod_counts(recorder, {name: 3}, timeouts)
        pods = recording.pods_of_workflow(recorder.events(), name).values()
        on_exit = sorted(
            p["metadata"]["annotations"].get(contract.NODE_NAME, "")
            for p in pods
            if (p["metadata"].get("labels") or {}).get(ON_EXIT) == "true"
        )
        assert on_exit == sorted(tasks[t]["name"] for t in ("first", "second")), (
            f"onExit pods {on_exit}"
        )
