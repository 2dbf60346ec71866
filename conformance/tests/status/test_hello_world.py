"""HelloWorld: the smallest workflow succeeds, in every layout the implementation claims.

We test these aspects: a one-container workflow reaches `Succeeded`; its pod
node is Succeeded with an empty message and exit code "0" (WPC-STATUS-002);
node phases, messages and exit codes are recorded
for the cross-layout comparison. Matrix: legacy and init-less (the plugin fans
the test out per claimed layout).
"""

from __future__ import annotations

import pytest


@pytest.mark.conformance(short_name="HelloWorld", clauses=["WPC-STATUS-002"])
def test_hello_world_workflow_succeeds_with_exit_code_zero(
    workflows, manifest, observations
):
    name, workflow = workflows.completed(manifest(), observations=observations)

    status = workflow["status"]
    assert status["phase"] == "Succeeded", f"workflow {name}: {status.get('message')!r}"
    pod_nodes = [n for n in status["nodes"].values() if n["type"] == "Pod"]
    got = [
        (n["phase"], n.get("message", ""), n.get("outputs", {}).get("exitCode"))
        for n in pod_nodes
    ]
    assert got == [("Succeeded", "", "0")], (
        f"WPC-STATUS-002: workflow {name}: pod nodes (phase, message, exitCode) {got}"
    )
