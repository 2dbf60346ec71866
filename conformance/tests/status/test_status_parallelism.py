"""StatusParallelism: an exit handler in the last `spec.parallelism` slot errors nothing.

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
"""

from __future__ import annotations

import pytest

from conformance import contract
from conformance.harness.inspecting import recording

ON_EXIT = "workflows.argoproj.io/on-exit"


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
