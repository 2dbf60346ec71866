"""StatusParallelism: a limit fails nothing, and failFast waits for the running children.

An exit handler in the last `spec.parallelism` slot errors nothing.

We test these aspects (WPC-STATUS-020), with `spec.parallelism: 1` and a DAG
whose only task `a` exits 0 and has an `onExit` handler that exits 0, so the
handler's pod takes the only slot once `a` is done:

- the workflow and its DAG node end `Succeeded`, with no message;
- `a` ends `Succeeded`, and its handler runs once: exactly one node
  `<a's node name>.onExit`, `Succeeded`, and exactly one pod labelled
  `workflows.argoproj.io/on-exit: "true"`, whose node is that node;
- the workflow had exactly two pods, also over several observations after it
  completed.

Upstream bug this catches (conformance/spec/history.yaml, exit-node-rerun):
before v4.1.0 and v4.0.6 the controller ran a DAG target task's exit handler
twice per reconciliation; the second call found the limit reached by the pod
the first had just created and errored the DAG with `Max parallelism
reached`, so the workflow ended `Error` (argoproj/argo-workflows#14392, fix
d81ac3f7). Pods are recorded from before the submission. Matrix: legacy and
initless.

failFast under parallelism lets the running child finish and leaves nothing running.

We test these aspects (WPC-STATUS-023), in two workflows run side by side: a
DAG and a steps template, each with `parallelism: 2` and `failFast: true`,
whose child `fails` exits 1 at once while its child `runs` exits 0 after 15 s:

- the workflow ends `Failed` with `template has failed or errored children and
  failFast enabled`, and so does the DAG or steps node (and, for steps, its step
  group `[0]`);
- `fails` ends `Failed`; `runs` ends `Succeeded`, and no later than the
  template node: the template waited for it;
- in the first completed version of each workflow no node is `Pending` or
  `Running`.

Upstream bug this catches (conformance/spec/history.yaml,
failfast-parallelism-nodes-left-running): before v3.7.0-rc1 a failed child
failed the DAG or steps node at once, the workflow completed `Failed` and
`runs` stayed `Running` in it (argoproj/argo-workflows#13806, fix 1d85e685).
The negative control `fail-fast-at-once` brings that back. Matrix: legacy and
initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness.inspecting import recording

ON_EXIT = "workflows.argoproj.io/on-exit"
MESSAGE = "template has failed or errored children and failFast enabled"
ACTIVE = ("Pending", "Running")


@pytest.mark.conformance(short_name="StatusParallelism", clauses=["WPC-STATUS-020"])
def test_an_exit_handler_in_the_last_parallelism_slot_fails_nothing(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        name, workflow = workflows.completed(manifest(), observations=observations)
        status = workflow["status"]
        nodes = {n["name"]: n for n in status["nodes"].values()}
        root = nodes[name]
        assert (status["phase"], status.get("message", "")) == ("Succeeded", ""), (
            f"WPC-STATUS-020: workflow {status['phase']} "
            f"{status.get('message', '')!r}; "
            f"DAG {root['phase']} {root.get('message', '')!r}"
        )
        assert (root["type"], root["phase"]) == ("DAG", "Succeeded"), (
            f"WPC-STATUS-020: DAG {root}"
        )
        task = nodes[f"{name}.a"]
        assert task["phase"] == "Succeeded", f"WPC-STATUS-020: task a {task}"
        handlers = [n for n in nodes.values() if n["name"].endswith(".onExit")]
        assert [(n["name"], n["phase"]) for n in handlers] == [
            (f"{name}.a.onExit", "Succeeded")
        ], f"WPC-STATUS-020: exit handler nodes {handlers}"

        recording.settle_pod_counts(recorder, {name: 2}, timeouts)
        pods = recording.pods_of_workflow(recorder.events(), name).values()
    on_exit = [
        p["metadata"]["annotations"].get(contract.NODE_ID)
        for p in pods
        if (p["metadata"].get("labels") or {}).get(ON_EXIT) == "true"
    ]
    assert on_exit == [handlers[0]["id"]], (
        f"WPC-STATUS-020: onExit pods by node ID: {on_exit}"
    )


def check(name: str, workflow: dict[str, Any], kind: str) -> None:
    """Assert WPC-STATUS-023 on one completed workflow whose template is `kind`."""
    status = workflow["status"]
    nodes = {n["name"]: n for n in status["nodes"].values()}
    summary = sorted((n["displayName"], n["phase"]) for n in nodes.values())
    active = [(n["name"], n["phase"]) for n in nodes.values() if n["phase"] in ACTIVE]
    assert not active, (
        f"WPC-STATUS-023: {kind} workflow {name} completed {status['phase']} "
        f"with nodes still active: {active}"
    )
    root = nodes[name]
    assert (status["phase"], status.get("message")) == ("Failed", MESSAGE), (
        f"WPC-STATUS-023: {kind} workflow {status['phase']} "
        f"{status.get('message')!r}; nodes {summary}"
    )
    assert (root["type"], root["phase"], root.get("message")) == (
        kind,
        "Failed",
        MESSAGE,
    ), f"WPC-STATUS-023: {kind} node {root['phase']} {root.get('message')!r}"
    children = {n["displayName"]: n for n in nodes.values()}
    assert children["fails"]["phase"] == "Failed", f"fails: {children['fails']}"
    runs = children["runs"]
    assert runs["phase"] == "Succeeded", (
        f"WPC-STATUS-023: {kind} child runs {runs['phase']} "
        f"{runs.get('message', '')!r}, not left to finish"
    )
    assert runs["finishedAt"] <= root["finishedAt"], (
        f"WPC-STATUS-023: the {kind} node finished at {root['finishedAt']}, "
        f"before its child runs ({runs['finishedAt']})"
    )
    if kind == "Steps":
        group = children["[0]"]
        assert (group["phase"], group.get("message")) == ("Failed", MESSAGE), (
            f"WPC-STATUS-023: step group [0] {group['phase']} {group.get('message')!r}"
        )


@pytest.mark.conformance(short_name="StatusParallelism", clauses=["WPC-STATUS-023"])
def test_fail_fast_lets_the_running_child_finish_and_leaves_no_node_running(
    workflows, manifest, observations
):
    dag = workflows.submit(manifest("status-fail-fast.yaml"))
    steps = workflows.submit(manifest("status-fail-fast-steps.yaml"))
    for name, kind in ((dag, "DAG"), (steps, "Steps")):
        workflow = workflows.wait_completed(name)
        observations.record_workflow(workflow)
        check(name, workflow, kind)
