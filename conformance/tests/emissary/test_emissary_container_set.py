"""EmissaryContainerSet: containerSet dependencies and the members' child nodes.

We test these aspects, with one containerSet of four members:

- `b` depends on `a`; when `b`'s command starts, `a`'s `exitcode` file
  already holds `0` (`b` reports `a=0`) (WPC-EMISSARY-010);
- `d` depends on `c`, which exits 2; `d` exits 64 without running its command,
  with the termination message `dependency "c" exited with non-zero code: 2`
  (WPC-EMISSARY-010);
- each member has a child node `<pod node name>.<member>`: `Succeeded` for
  exit 0 (`a`, `b`), `Failed` for exit 2 (`c`) and `Error` for exit 64 (`d`),
  a failed one with the message `<member>: <Reason> (exit code N): <msg>`,
  the `: ` kept even when the termination message is empty
  (WPC-STATUS-017).

Members of a pod that never ran them complete, in a DAG whose only task `set`
is a containerSet (a DAG waits for the members of a containerSet task):

- its user init container exits 1, so the pod fails before member `a` or `b`
  (which depends on `a`) runs: the pod node and both members end `Failed` or
  `Error`, and the workflow ends `Failed` with no node `Pending` or `Running`
  (WPC-STATUS-024);
- once the Workflow records member `first` `Running` and its container runs,
  the suite force-deletes the pod: the pod node ends `Error` with
  `pod deleted`, `first` and `second` (which depends on `first`) end `Error`,
  and the workflow completes with no node `Pending` or `Running`
  (WPC-STATUS-025).

A workflow that does not complete within the completion timeout fails the
clause, naming the nodes still active.

Upstream bugs these catch (conformance/spec/history.yaml): before v3.7.0-rc1
the members of a pod that failed in its init containers stayed `Pending`
(containerset-init-failure-hangs, argoproj/argo-workflows#14495, fix
cf4daada), and a deleted pod errored only the members without dependencies
(containerset-members-running-after-pod-deleted, #13951, fix 43c6abd1); in
both the DAG, and so the workflow, stayed `Running` for ever.

Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster import watching
from conformance.harness.stage import namespaces
from conformance.harness.workload import pods
from conformance.harness.workload import workflows as workflow_ops

DEPENDENCY_FAILED = 'dependency "c" exited with non-zero code: 2'
ACTIVE = ("Pending", "Running")
ENDED_BADLY = ("Failed", "Error")


@pytest.mark.conformance(
    short_name="EmissaryContainerSet",
    clauses=["WPC-EMISSARY-010", "WPC-STATUS-017"],
)
def test_members_wait_for_dependencies_and_get_child_nodes(
    workflows, manifest, observations, kube_clients, namespace
):
    name, workflow = workflows.completed(manifest(), observations=observations)
    nodes = {n["name"]: n for n in workflow["status"]["nodes"].values()}
    summary = {
        k: (n.get("type"), n.get("phase"), n.get("message")) for k, n in nodes.items()
    }
    pod_nodes = [n for n in nodes.values() if n.get("type") == "Pod"]
    status = workflow["status"]
    assert len(pod_nodes) == 1, (
        f"expected one Pod node; workflow {status.get('phase')}: "
        f"{status.get('message')!r}, nodes {summary}"
    )
    pod_node = pod_nodes[0]
    members = pods.all_terminated(kube_clients, namespace, name)

    b = members["b"]
    assert (b.exit_code, b.message) == (0, "a=0"), "b started before a's exitcode was 0"
    d = members["d"]
    assert (d.exit_code, d.message) == (64, DEPENDENCY_FAILED)

    expected_phase = {"a": "Succeeded", "b": "Succeeded", "c": "Failed", "d": "Error"}
    for member, phase in expected_phase.items():
        child = nodes.get(f"{pod_node['name']}.{member}")
        assert child is not None, f"no child node for member {member}: {summary}"
        assert child["phase"] == phase, (
            f"{member}: {child['phase']} {child.get('message')}"
        )
        if phase != "Succeeded":
            term = members[member]
            assert child.get("message") == (
                f"{member}: {term.reason} (exit code {term.exit_code}): "
                f"{term.message or ''}"
            ), f"{member}: message"


def pod_and_members(
    workflow: dict[str, Any], pod_task: str, members: list[str]
) -> tuple[dict[str, Any] | None, dict[str, dict[str, Any] | None]]:
    """The containerSet's pod node (display name `pod_task`) and its member nodes."""
    nodes = ((workflow.get("status") or {}).get("nodes") or {}).values()
    pod_node = next(
        (
            n
            for n in nodes
            if n.get("displayName") == pod_task and n.get("type") == "Pod"
        ),
        None,
    )
    by_name = {n.get("name"): n for n in nodes}
    prefix = f"{pod_node['name']}." if pod_node else None
    return pod_node, {
        m: by_name.get(f"{prefix}{m}") if prefix else None for m in members
    }


def phases(workflow: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Every node's display name, phase and message, sorted: a failure's evidence."""
    nodes = ((workflow.get("status") or {}).get("nodes") or {}).values()
    return sorted(
        (
            str(n.get("displayName")),
            str(n.get("phase")),
            str(n.get("message", "")),
        )
        for n in nodes
    )


def completed_in_time(workflows: Any, name: str, clause: str) -> dict[str, Any]:
    """The first completed version of the workflow; not completing fails `clause`.

    A workflow left `Running` because a member node never completes is the
    clause broken, so running out of the completion timeout names the clause.
    """
    with watching.clause_limit(clause):
        workflow: dict[str, Any] = workflows.wait_completed(name)
    return workflow


def assert_nothing_active(workflow: dict[str, Any], clause: str) -> None:
    """AssertionError naming `clause` if a node is still Pending or Running."""
    status = workflow["status"]
    active = [
        (n.get("displayName"), n.get("phase"))
        for n in status["nodes"].values()
        if n.get("phase") in ACTIVE
    ]
    assert not active, (
        f"{clause}: workflow {workflow['metadata']['name']} completed "
        f"{status['phase']} with nodes still active: {active}; nodes {phases(workflow)}"
    )


@pytest.mark.conformance(short_name="EmissaryContainerSet", clauses=["WPC-STATUS-024"])
def test_a_failed_init_container_completes_every_member_and_the_workflow(
    workflows, manifest, observations
):
    clause = "WPC-STATUS-024"
    name = workflows.submit(manifest("emissary-container-set-init-failure.yaml"))
    workflow = completed_in_time(workflows, name, clause)
    observations.record_workflow(workflow)
    assert_nothing_active(workflow, clause)
    status = workflow["status"]
    seen = phases(workflow)
    assert status["phase"] == "Failed", (
        f"{clause}: workflow {status['phase']} {status.get('message', '')!r}; "
        f"nodes {seen}"
    )
    pod_node, members = pod_and_members(workflow, "set", ["a", "b"])
    assert pod_node is not None, f"{clause}: no Pod node for task set; nodes {seen}"
    assert pod_node["phase"] in ENDED_BADLY, (
        f"{clause}: pod node {pod_node['phase']} {pod_node.get('message', '')!r}"
    )
    for member, node in members.items():
        assert node is not None, f"{clause}: no node for member {member}; nodes {seen}"
        assert node["phase"] in ENDED_BADLY, (
            f"{clause}: member {member} {node['phase']} {node.get('message', '')!r} "
            "although its pod failed in an init container"
        )


def first_runs(kube_clients: kube.Clients, workflows: Any, name: str) -> Any | NotYet:
    """The pod once the Workflow records member `first` Running and its container runs."""
    workflow = workflows.get(name)
    _, members = pod_and_members(workflow, "set", ["first"])
    node = members["first"]
    listed = workflow_ops.workflow_pods(kube_clients, workflows.namespace, name)
    if node is None or node.get("phase") != "Running" or len(listed) != 1:
        return NotYet(
            f"member first {node and node.get('phase')}, {len(listed)} pods; "
            f"nodes {phases(workflow)}"
        )
    states = {s.name: s.state for s in (listed[0].status.container_statuses or [])}
    if states.get("first") is not None and states["first"].running:
        return listed[0]
    return NotYet(f"container first: {states.get('first')}")


@pytest.mark.conformance(short_name="EmissaryContainerSet", clauses=["WPC-STATUS-025"])
def test_a_deleted_pod_errors_every_member_and_the_workflow_completes(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    clause = "WPC-STATUS-025"
    name = workflows.submit(manifest("emissary-container-set-pod-deleted.yaml"))
    pod = until(
        lambda: first_runs(kube_clients, workflows, name),
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        describe=f"member first of {name} to run",
    )
    namespaces.strip_status_finalizers(kube_clients, namespace)
    kube_clients.core.delete_namespaced_pod(
        pod.metadata.name, namespace, grace_period_seconds=0
    )
    workflow = completed_in_time(workflows, name, clause)
    observations.record_workflow(workflow)
    assert_nothing_active(workflow, clause)
    seen = phases(workflow)
    pod_node, members = pod_and_members(workflow, "set", ["first", "second"])
    assert pod_node is not None, f"{clause}: no Pod node for task set; nodes {seen}"
    assert (pod_node["phase"], pod_node.get("message")) == ("Error", "pod deleted"), (
        f"{clause}: pod node {pod_node['phase']} {pod_node.get('message', '')!r} "
        f"after its pod {pod.metadata.name} was deleted"
    )
    for member, node in members.items():
        assert node is not None, f"{clause}: no node for member {member}; nodes {seen}"
        assert node["phase"] == "Error", (
            f"{clause}: member {member} {node['phase']} {node.get('message', '')!r} "
            f"after its pod {pod.metadata.name} was deleted"
        )
