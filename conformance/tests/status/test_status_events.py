"""StatusEvents: Kubernetes Events for workflow and node phase changes (a SHOULD).

We test these aspects (WPC-STATUS-015), on a steps workflow whose first step
succeeds and second fails, and on a copy whose only step succeeds; Events
whose `involvedObject` is the Workflow must include:

- `WorkflowRunning` (Normal, `Workflow Running`) for both;
- `WorkflowFailed` (Warning, the workflow message) and `WorkflowSucceeded`
  (Normal, `Workflow completed`);
- per node phase change `WorkflowNode<Phase>` with `<Phase> node <node
  name>[: <node message>]`: Normal for the succeeded nodes, Warning for the
  failed step and the failed root.

`Running` node events are not required: a node may complete before the
controller ever sees it running. Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until


def node_event(node: dict[str, Any]) -> tuple[str, str, str]:
    """The (reason, type, message) a node's final phase should be reported with."""
    phase = node["phase"]
    message = f"{phase} node {node['name']}"
    if node.get("message"):
        message += f": {node['message']}"
    kind = "Normal" if phase in {"Running", "Succeeded"} else "Warning"
    return f"WorkflowNode{phase}", kind, message


def expected_events(workflow: dict[str, Any]) -> set[tuple[str, str, str]]:
    """Workflow-level and node-level events the completed workflow should have."""
    status = workflow["status"]
    if status["phase"] == "Succeeded":
        final = ("WorkflowSucceeded", "Normal", "Workflow completed")
    else:
        final = ("WorkflowFailed", "Warning", status.get("message", ""))
    nodes = [n for n in status["nodes"].values() if n["type"] in {"Pod", "Steps"}]
    return {("WorkflowRunning", "Normal", "Workflow Running"), final} | {
        node_event(n) for n in nodes
    }


@pytest.mark.conformance(short_name="StatusEvents", clauses=["WPC-STATUS-015"])
def test_workflow_and_node_phase_changes_are_recorded_as_events(
    workflows, manifest, kube_clients, namespace, timeouts
):
    names = [
        workflows.submit(manifest()),
        workflows.submit(manifest("hello-world.yaml")),
    ]
    done = [workflows.wait_completed(name) for name in names]
    assert [w["status"]["phase"] for w in done] == ["Failed", "Succeeded"]

    def recorded() -> bool | NotYet:
        events = kube_clients.core.list_namespaced_event(namespace).items
        missing = {}
        for workflow in done:
            name = workflow["metadata"]["name"]
            seen = {
                (e.reason, e.type, e.message)
                for e in events
                if e.involved_object.kind == "Workflow"
                and e.involved_object.name == name
            }
            if absent := expected_events(workflow) - seen:
                missing[name] = sorted(absent)
        return not missing or NotYet(f"missing events: {missing}")

    until(
        recorded,
        timeout=timeouts.cleanup,
        interval=timeouts.poll_interval,
        describe="the workflow and node Events",
    )
