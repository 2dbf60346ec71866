"""StatusShutdown: `spec.shutdown` Stop and Terminate end the workflow as Failed.

We test these aspects (WPC-STATUS-014), with two workflows at once, each with
a long first step `a`, a second step `b` and an onExit handler; once `a`'s
main runs, the suite sets `spec.shutdown` to `Stop` on one and `Terminate` on
the other:

- the workflow ends `Failed` with `Stopped with strategy '<Stop|Terminate>'`;
- `a`'s node ends `Failed` or `Error`; `b` never gets a pod;
- with `Stop` the onExit handler still runs (its node `Succeeded`, one pod);
  with `Terminate` no onExit node exists and no onExit pod is created.

Pods are recorded from before the submission, and the pod count is checked
over several observations after the workflows completed. Matrix: legacy and
initless.
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

WORKFLOW = "workflows.argoproj.io/workflow"
ON_EXIT = "workflows.argoproj.io/on-exit"
STRATEGIES = ("Stop", "Terminate")


def a_is_running(
    kube_clients: kube.Clients, workflows: Any, name: str
) -> bool | NotYet:
    """Whether step `a`'s node is Running and its main container runs."""
    nodes = (workflows.get(name).get("status") or {}).get("nodes") or {}
    node = next((n for n in nodes.values() if n.get("displayName") == "a"), None)
    pods = kube_clients.core.list_namespaced_pod(
        workflows.namespace, label_selector=f"{WORKFLOW}={name}"
    ).items
    running = [
        p.metadata.name
        for p in pods
        for s in p.status.container_statuses or []
        if s.name == "main" and s.state.running
    ]
    if node and node.get("phase") == "Running" and running:
        return True
    return NotYet(
        f"{name}: node a {node and node.get('phase')}, running mains {running}"
    )


@pytest.mark.conformance(short_name="StatusShutdown", clauses=["WPC-STATUS-014"])
def test_stop_runs_the_exit_handler_and_terminate_does_not(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        names = {s: workflows.submit(manifest()) for s in STRATEGIES}
        for strategy, name in names.items():
            until(
                functools.partial(a_is_running, kube_clients, workflows, name),
                timeout=timeouts.user_command_started,
                interval=timeouts.poll_interval,
                describe=f"step a of {name} to run",
            )
            kube_clients.custom.patch_namespaced_custom_object(
                contract.WORKFLOW_GROUP,
                contract.WORKFLOW_VERSION,
                namespace,
                "workflows",
                name,
                {"spec": {"shutdown": strategy}},
            )
        done = {s: workflows.wait_completed(n) for s, n in names.items()}
        # Stop runs the exit handler (its pod is the second); Terminate does not.
        expected = {"Stop": 2, "Terminate": 1}
        recording.settle_pod_counts(
            recorder, {names[s]: expected[s] for s in STRATEGIES}, timeouts
        )
    for strategy, workflow in done.items():
        status = workflow["status"]
        nodes = {n["displayName"]: n for n in status["nodes"].values()}
        exit_nodes = [
            n for n in status["nodes"].values() if n["name"].endswith(".onExit")
        ]
        observations.record(
            f"{strategy}.workflow", [status["phase"], status.get("message")]
        )
        where = f"{strategy} ({workflow['metadata']['name']})"
        assert (status["phase"], status.get("message")) == (
            "Failed",
            f"Stopped with strategy '{strategy}'",
        ), (
            f"WPC-STATUS-014: {where}: workflow {status['phase']} {status.get('message')!r}"
        )
        assert nodes["a"]["phase"] in {"Failed", "Error"}, f"{where}: a {nodes['a']}"
        pods = recording.pods_of_workflow(
            recorder.events(), workflow["metadata"]["name"]
        )
        on_exit = [
            p for p in pods.values() if p["metadata"]["labels"].get(ON_EXIT) == "true"
        ]
        if strategy == "Stop":
            assert [n["phase"] for n in exit_nodes] == ["Succeeded"], (
                f"{where}: {exit_nodes}"
            )
            assert len(on_exit) == 1, f"{where}: onExit pods {len(on_exit)}"
        else:
            assert not exit_nodes, f"{where}: onExit nodes {exit_nodes}"
            assert not on_exit, f"{where}: onExit pods {len(on_exit)}"
