"""PodMetadata: labels, annotations, owner and deadline of every workflow pod.

We test these aspects, on the three pods of `manifests/pod-metadata.yaml` (a
step with template metadata and its own deadline, a plain step, an onExit
handler) under a workflow with podMetadata and a 150 s deadline:

- the labels each pod has in its first version (its ADDED event):
  the workflow name, `completed: "false"`, and `on-exit: "true"` on the onExit
  handler's pod only (WPC-POD-001);
- the node-name and node-id annotations match the Workflow's status nodes, and
  the default container is `main` (WPC-POD-002);
- exactly one ownerReference, the controlling Workflow, and `restartPolicy:
  Never` (WPC-POD-003);
- podMetadata and template metadata both reach the pod, the template winning
  on a shared key (WPC-POD-004);
- `activeDeadlineSeconds`: the template's when smaller than what remains of the
  workflow's deadline, the remaining seconds when the template sets none, and
  the template's for the onExit handler, which the workflow deadline does not
  bind (WPC-POD-009).

Every problem names its clause; the test fails once, listing them all. Matrix:
legacy and init-less; the workflow outcome is recorded for the cross-layout
comparison.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from conformance.harness.inspecting import recording

PREFIX = "workflows.argoproj.io/"
USER_KEYS = ("wpc.dev/both", "wpc.dev/workflow-only", "wpc.dev/template-only")
WORKFLOW_DEADLINE = 150
"""spec.activeDeadlineSeconds of the manifest."""
TEMPLATE_DEADLINES = {"tagged": 100, "plain": None, "exit-handler": 200}
DEADLINE_SLACK = 2
"""Seconds lost to whole-second startedAt, creationTimestamp and remaining time."""


def seconds(timestamp: str) -> float:
    return datetime.datetime.fromisoformat(timestamp).timestamp()


def deadline_problem(
    pod: dict[str, Any], *, template: str, workflow: dict[str, Any]
) -> list[str]:
    """WPC-POD-009: the template's deadline, capped by the workflow's unless onExit."""
    value = pod["spec"].get("activeDeadlineSeconds")
    started = workflow["status"]["startedAt"]
    created = pod["metadata"]["creationTimestamp"]
    remaining = WORKFLOW_DEADLINE - (seconds(created) - seconds(started))
    own = TEMPLATE_DEADLINES[template]
    low: float
    high: float
    if own is None:
        low, high = remaining - DEADLINE_SLACK, WORKFLOW_DEADLINE
    elif template == "exit-handler":
        low, high = own, own
    else:
        low, high = min(own, remaining - DEADLINE_SLACK), own
    if value is not None and low <= value <= high:
        return []
    return [
        f"WPC-POD-009: {template} pod activeDeadlineSeconds: expected {low:.0f}..{high}, "
        f"got {value} (pod created {created}, workflow started {started})"
    ]


def metadata_problems(
    pod: dict[str, Any], *, node: dict[str, Any], workflow: dict[str, Any]
) -> list[str]:
    """WPC-POD-002, -003 and -004 on one pod."""
    meta = pod["metadata"]
    notes, labels = meta.get("annotations") or {}, meta.get("labels") or {}
    user = {"wpc.dev/both": "workflow", "wpc.dev/workflow-only": "yes"}
    if node["templateName"] == "tagged":
        user |= {"wpc.dev/both": "template", "wpc.dev/template-only": "yes"}
    owner = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "name": workflow["metadata"]["name"],
        "uid": workflow["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    checks = [
        (
            "WPC-POD-002",
            "node-name and default-container annotations",
            [
                notes.get(f"{PREFIX}node-name"),
                notes.get("kubectl.kubernetes.io/default-container"),
            ],
            [node["name"], "main"],
        ),
        ("WPC-POD-003", "ownerReferences", meta.get("ownerReferences"), [owner]),
        ("WPC-POD-003", "restartPolicy", pod["spec"].get("restartPolicy"), "Never"),
        (
            "WPC-POD-004",
            "user labels",
            {k: labels.get(k) for k in USER_KEYS},
            {**dict.fromkeys(USER_KEYS), **user},
        ),
        (
            "WPC-POD-004",
            "user annotations",
            {k: notes.get(k) for k in USER_KEYS},
            {**dict.fromkeys(USER_KEYS), **user},
        ),
    ]
    return [
        f"{clause}: pod {meta['name']} {what}: expected {want!r}, got {got!r}"
        for clause, what, got, want in checks
        if got != want
    ]


@pytest.mark.conformance(
    short_name="PodMetadata",
    clauses=["WPC-POD-001", "WPC-POD-002", "WPC-POD-003", "WPC-POD-004", "WPC-POD-009"],
)
def test_pods_carry_labels_annotations_owner_and_deadlines_of_their_nodes(
    workflows, manifest, observations, kube_clients, namespace
):
    with recording.Recorder.pods(kube_clients, namespace) as pods:
        name = workflows.submit(manifest())
        workflow = workflows.wait_completed(name)
    created: dict[str, dict[str, Any]] = {}
    for event in pods.events():  # the first version of each pod
        created.setdefault(event.uid, event.obj)
    observations.record_workflow(workflow)
    status = workflow["status"]
    assert status["phase"] == "Succeeded", f"workflow {name}: {status.get('message')!r}"

    problems = []
    for first in created.values():
        labels = first["metadata"].get("labels") or {}
        node_id = (first["metadata"].get("annotations") or {}).get(f"{PREFIX}node-id")
        template = status["nodes"].get(node_id, {}).get("templateName")
        got = [
            labels.get(f"{PREFIX}{key}") for key in ("workflow", "completed", "on-exit")
        ]
        want = [name, "false", "true" if template == "exit-handler" else None]
        if got != want:
            problems.append(
                f"WPC-POD-001: first version of pod {first['metadata']['name']} "
                f"(template {template}): labels workflow, completed, on-exit: "
                f"expected {want}, got {got}"
            )
    templates = []
    listing = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"{PREFIX}workflow={name}"
    )
    for pod in map(kube_clients.api.sanitize_for_serialization, listing.items):
        node_id = (pod["metadata"].get("annotations") or {}).get(f"{PREFIX}node-id")
        node = status["nodes"].get(node_id)
        if node is None or node.get("type") != "Pod":
            problems.append(
                f"WPC-POD-002: pod {pod['metadata']['name']}: node-id {node_id!r} "
                f"is no pod node of the workflow ({sorted(status['nodes'])})"
            )
            continue
        templates.append(node["templateName"])
        problems += metadata_problems(pod, node=node, workflow=workflow)
        problems += deadline_problem(
            pod, template=node["templateName"], workflow=workflow
        )
    assert not problems, "\n".join(problems)
    assert sorted(templates) == sorted(TEMPLATE_DEADLINES), (
        f"pods by template: {templates}"
    )
