"""StatusRetries: a retried template runs limit + 1 attempts, each with its own pod.

We test these aspects (WPC-STATUS-016), with `retryStrategy: {limit: 2}` on a
command that always exits 1:

- the retry node has the children `<retry node name>(0)`, `(1)` and `(2)`,
  each `Failed`, and ends `Failed` with `No more retries left`;
- each attempt has its own pod (three pods, one per attempt node ID).

Matrix: legacy and initless.
"""

from __future__ import annotations

import pytest

from conformance.harness.workload.workflows import workflow_pods

NODE_ID = "workflows.argoproj.io/node-id"


@pytest.mark.conformance(short_name="StatusRetries", clauses=["WPC-STATUS-016"])
def test_a_failing_template_is_attempted_limit_plus_one_times(
    workflows, manifest, observations, kube_clients, namespace
):
    name, workflow = workflows.completed(manifest(), observations=observations)
    nodes = {n["name"]: n for n in workflow["status"]["nodes"].values()}
    retry = nodes[name]
    assert (retry["phase"], retry.get("message")) == (
        "Failed",
        "No more retries left",
    ), f"WPC-STATUS-016: retry node {retry['phase']} {retry.get('message')!r}"
    missing = [f"{name}({i})" for i in range(3) if f"{name}({i})" not in nodes]
    assert not missing, f"no attempt nodes {missing}: {sorted(nodes)}"
    attempts = [nodes[f"{name}({i})"] for i in range(3)]
    assert [a["phase"] for a in attempts] == ["Failed"] * 3, attempts
    assert sorted(retry.get("children") or []) == sorted(a["id"] for a in attempts)
    assert f"{name}(3)" not in nodes, "a fourth attempt"
    pods = workflow_pods(kube_clients, namespace, name)
    owners = sorted(str((p.metadata.annotations or {}).get(NODE_ID)) for p in pods)
    assert owners == sorted(a["id"] for a in attempts), f"pods per node ID: {owners}"
