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

Matrix: legacy and initless.
"""

from __future__ import annotations

import pytest

from conformance.harness.workload import pods

DEPENDENCY_FAILED = 'dependency "c" exited with non-zero code: 2'


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
