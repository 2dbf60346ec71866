"""ResultTaskResults: the executor reports outputs through WorkflowTaskResults, with minimal RBAC.

We test these aspects, with two workflows run under the test namespace's
`default` service account, whose only permissions are the suite's executor
Role: `create` and `patch` on `argoproj.io/workflowtaskresults` (checked with
SubjectAccessReviews: no access to pods, pods/exec or Workflows). One is a
two-step workflow (`produce` prints `hello` and writes the parameter `p`;
`consume` passes both on), the other a pod whose main writes `p` and exits 1.
Task results and Workflows are recorded (list + watch) from before the
submission:

- every pod node gets exactly one task result, `argoproj.io/v1alpha1`, in the
  pod's namespace, named after the node ID (WPC-RESULT-001);
- its first version carries the labels `workflows.argoproj.io/workflow` and
  `report-outputs-completed: "false"`, and one ownerReference to the Workflow
  (WPC-RESULT-002);
- the label becomes `"true"`, also for the failing node (WPC-RESULT-003), and
  that version holds every output parameter and, for `produce`, the result
  `hello` (WPC-RESULT-004);
- the nodes' outputs equal the task results', and `outputs.exitCode` equals
  main's terminated exit code (WPC-RESULT-005);
- both workflows end as their commands decided, with their outputs, under
  that minimal service account (WPC-RESULT-006);
- no recorded version shows `produce` `Succeeded` without `p`, and `consume`
  receives exactly `hello` and `param-value` (WPC-STATUS-010);
- `produce`'s pod carries `ARGO_INCLUDE_SCRIPT_OUTPUT=true` on `main` and its
  result is its stdout minus the trailing newline (WPC-STATUS-011).

ResultCleanup checks the SHOULD that the controller deletes a completed
workflow's task results (WPC-RESULT-007). Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import HarnessError
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import recording
from conformance.harness.stage.namespaces import executor_subject

API_VERSION = "argoproj.io/v1alpha1"
WORKFLOW = "workflows.argoproj.io/workflow"
COMPLETED = "workflows.argoproj.io/report-outputs-completed"
TASK_RESULTS = "argoproj.io", "workflowtaskresults", ""
MUST = [("create", *TASK_RESULTS), ("patch", *TASK_RESULTS)]
MUST_NOT = [
    *((verb, "", "pods", "") for verb in ("get", "patch", "update")),
    ("create", "", "pods", "exec"),
    *((verb, "argoproj.io", "workflows", "") for verb in ("get", "patch", "update")),
]
EXPECTED_OUTPUTS = {
    "produce": ({"p": "param-value"}, "hello"),
    "consume": ({"received": "hello|param-value"}, None),
    "failing": ({"p": "written-before-failing"}, None),
}


def executor_access(kube_clients: kube.Clients, namespace: str) -> dict[str, bool]:
    """What SubjectAccessReviews say the namespace's `default` SA may do."""
    from kubernetes import client

    authz = client.AuthorizationV1Api(kube_clients.api)
    access = {}
    for verb, group, resource, subresource in MUST + MUST_NOT:
        attributes = {"namespace": namespace, "verb": verb, "group": group}
        attributes |= {"resource": resource, "subresource": subresource}
        review: Any = {
            "spec": {**executor_subject(namespace), "resourceAttributes": attributes}
        }
        status = authz.create_subject_access_review(review).status
        access[f"{verb} {resource}/{subresource}"] = bool(status and status.allowed)
    return access


def label(obj: dict[str, Any], key: str) -> str | None:
    """One label of an API object (JSON form)."""
    return (obj["metadata"].get("labels") or {}).get(key)


def outputs_of(holder: dict[str, Any]) -> tuple[dict[str, str], str | None]:
    """(parameter name -> value, result) of a node or task result."""
    outputs = holder.get("outputs") or {}
    params = {p["name"]: p.get("value") for p in outputs.get("parameters") or []}
    return params, outputs.get("result")


def pod_nodes(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Pod nodes by step name (`failing` for the single-pod workflow's root)."""
    name = workflow["metadata"]["name"]
    return {
        ("failing" if node_id == name else node["displayName"]): node
        for node_id, node in workflow["status"]["nodes"].items()
        if node["type"] == "Pod"
    }


def mains(kube_clients: kube.Clients, namespace: str) -> dict[str, tuple[int, Any]]:
    """node ID -> (main's exit code, main's env) for every pod in the namespace."""
    found = {}
    for pod in kube_clients.core.list_namespaced_pod(namespace).items:
        node_id = str(
            (pod.metadata.annotations or {}).get("workflows.argoproj.io/node-id")
        )
        spec = next(c for c in pod.spec.containers if c.name == "main")
        state = next(s for s in pod.status.container_statuses if s.name == "main").state
        assert state.terminated, f"{pod.metadata.name}: main has not terminated"
        found[node_id] = (
            state.terminated.exit_code,
            {e.name: e.value for e in spec.env or []},
        )
    return found


def completed(
    results: recording.Recorder, node_ids: set[str], timeouts: Timeouts
) -> dict[str, list[recording.Event]]:
    """Every recorded version of each task result, once all were seen completed."""

    def seen() -> dict[str, list[recording.Event]] | NotYet:
        found: dict[str, list[recording.Event]] = {}
        for event in results.events():
            found.setdefault(event.obj["metadata"]["name"], []).append(event)
        missing = sorted(
            n
            for n in node_ids
            if not any(label(e.obj, COMPLETED) == "true" for e in found.get(n, []))
        )
        return (
            NotYet(f"no completed task result yet for {missing}") if missing else found
        )

    return until(
        seen,
        timeout=timeouts.task_result_reported,
        interval=timeouts.poll_interval,
        describe="every pod node's task result to be recorded as complete",
    )


def check_task_result(
    step: str,
    node: dict[str, Any],
    versions: list[recording.Event],
    *,
    workflow: dict[str, Any],
    main: tuple[int, Any],
) -> list[str]:
    """The RESULT-001..005 and STATUS-011 problems of one pod node."""
    first, final = versions[0].obj, versions[-1].obj
    name, uid = workflow["metadata"]["name"], workflow["metadata"]["uid"]
    owner = {"apiVersion": API_VERSION, "kind": "Workflow", "name": name, "uid": uid}
    refs = [
        {k: r.get(k) for k in owner}
        for r in first["metadata"].get("ownerReferences") or []
    ]
    flipped = next(e.obj for e in versions if label(e.obj, COMPLETED) == "true")
    exit_code, env = main
    node_outputs = node.get("outputs") or {}
    checks = [
        (
            "WPC-RESULT-001",
            len({e.uid for e in versions}) == 1
            and first.get("apiVersion") == API_VERSION
            and first["metadata"].get("namespace") == workflow["metadata"]["namespace"],
            f"versions {[(e.kind, e.uid, e.obj.get('apiVersion')) for e in versions]}",
        ),
        (
            "WPC-RESULT-002",
            versions[0].kind == "ADDED"
            and (label(first, WORKFLOW), label(first, COMPLETED)) == (name, "false")
            and refs == [owner],
            f"first version ({versions[0].kind}): labels {first['metadata'].get('labels')}, owners {refs}",
        ),
        (
            "WPC-RESULT-003",
            label(final, COMPLETED) == "true",
            f"last label {label(final, COMPLETED)!r}",
        ),
        (
            "WPC-RESULT-004",
            outputs_of(flipped) == EXPECTED_OUTPUTS[step],
            f"outputs when completed {outputs_of(flipped)}, expected {EXPECTED_OUTPUTS[step]}",
        ),
        (
            "WPC-RESULT-005",
            outputs_of(node) == outputs_of(final)
            and node_outputs.get("exitCode") == str(exit_code),
            f"node outputs {node_outputs}, task result {final.get('outputs')}, main exited {exit_code}",
        ),
    ]
    if step == "produce":
        checks.append(
            (
                "WPC-STATUS-011",
                env.get("ARGO_INCLUDE_SCRIPT_OUTPUT") == "true"
                and node_outputs.get("result") == "hello",
                f"main env ARGO_INCLUDE_SCRIPT_OUTPUT={env.get('ARGO_INCLUDE_SCRIPT_OUTPUT')!r}",
            )
        )
    return [f"{clause} ({step}): {text}" for clause, ok, text in checks if not ok]


@pytest.mark.conformance(
    short_name="ResultTaskResults",
    clauses=[
        "WPC-RESULT-001",
        "WPC-RESULT-002",
        "WPC-RESULT-003",
        "WPC-RESULT-004",
        "WPC-RESULT-005",
        "WPC-RESULT-006",
        "WPC-STATUS-010",
        "WPC-STATUS-011",
    ],
)
def test_task_results_carry_outputs_under_minimal_executor_rbac(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    access = executor_access(kube_clients, namespace)
    if list(access.values()) != [True] * len(MUST) + [False] * len(MUST_NOT):
        raise HarnessError(f"the default SA's RBAC is not the minimal one: {access}")

    with (
        recording.Recorder.task_results(kube_clients, namespace) as results,
        recording.Recorder.workflows(kube_clients, namespace) as history,
    ):
        names = [
            workflows.submit(manifest()),
            workflows.submit(manifest("result-task-results-failing.yaml")),
        ]
        done = [workflows.wait_completed(name) for name in names]
        nodes = {**pod_nodes(done[0]), **pod_nodes(done[1])}
        recorded = completed(results, {n["id"] for n in nodes.values()}, timeouts)
    observations.record_workflow(done[0])
    phases = [(w["status"]["phase"], w["status"].get("message")) for w in done]
    problems = (
        []
        if [p for p, _ in phases] == ["Succeeded", "Failed"]
        else [f"WPC-RESULT-006: {phases}"]
    )
    main_of = mains(kube_clients, namespace)
    for step, node in nodes.items():
        workflow = done[1] if step == "failing" else done[0]
        problems += check_task_result(
            step,
            node,
            recorded[node["id"]],
            workflow=workflow,
            main=main_of[node["id"]],
        )

    produce = nodes["produce"]["id"]
    early = [
        e.obj["metadata"].get("resourceVersion")
        for e in history.events()
        if (node := (e.obj.get("status") or {}).get("nodes", {}).get(produce))
        and node.get("phase") == "Succeeded"
        and outputs_of(node)[0] != {"p": "param-value"}
    ]
    if early:
        problems.append(
            f"WPC-STATUS-010: produce Succeeded without its outputs in versions {early}"
        )
    received = {
        p["name"]: p.get("value")
        for p in (nodes["consume"].get("inputs") or {}).get("parameters") or []
    }
    if received != {"result": "hello", "p": "param-value"}:
        problems.append(f"WPC-STATUS-010: consume received {received}")
    assert not problems, "\n".join(problems)
