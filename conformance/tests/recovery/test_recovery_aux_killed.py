"""RecoveryAuxKilled: a node completes, as Error, when its aux container is killed.

We test these aspects: `podSpecPatch` gives the aux container (`wait` in
legacy, `supervisor` in initless) a memory limit too small for it, so the
kernel kills it (as upstream's own OOM test does); the pod terminates, the
workflow completes within the cleanup timeout after that, and when `main`
succeeded the node is `Error` with a message starting `wait: ` or
`supervisor: ` (WPC-RECOVERY-007). In initless the aux container dies before
the handshake, so `main` exits 65 after the 30 s marker rule; its node must
still complete, with the supervisor's message first.

Matrix: legacy and initless.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube

AUX = {contract.LEGACY: "wait", contract.INITLESS: "supervisor"}
TOO_LITTLE = "12Mi"


def _terminated_pod(kube_clients: kube.Clients, namespace: str, workflow: str) -> Any:
    pods = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={workflow}"
    ).items
    for pod in pods:
        statuses = pod.status.container_statuses or []
        if statuses and all(s.state.terminated for s in statuses):
            return pod
    return NotYet({p.metadata.name: p.status.phase for p in pods})


@pytest.mark.conformance(short_name="RecoveryAuxKilled", clauses=["WPC-RECOVERY-007"])
def test_a_node_whose_aux_container_is_killed_still_completes_as_error(
    workflows, manifest, kube_clients, namespace, layout, timeouts
):
    aux = AUX[layout.layout]
    doc = manifest()
    limits = {"memory": TOO_LITTLE}
    doc["spec"]["podSpecPatch"] = json.dumps(
        {
            "containers": [
                {"name": aux, "resources": {"limits": limits, "requests": limits}}
            ]
        }
    )
    name = workflows.submit(doc)

    pod = until(
        lambda: _terminated_pod(kube_clients, namespace, name),
        timeout=timeouts.workflow_completed,
        interval=timeouts.poll_interval,
        describe=f"the pod of {name} to terminate",
    )
    workflow = workflows.wait_completed(name, timeout=timeouts.cleanup)

    states = {s.name: s.state.terminated for s in pod.status.container_statuses}
    summary = {c: (t.reason, t.exit_code) for c, t in states.items()}
    assert states[aux].exit_code != 0, f"the aux container was not killed: {summary}"
    node = workflow["status"]["nodes"][name]
    message = node.get("message", "")
    assert node["phase"] == "Error", (
        f"WPC-RECOVERY-007: node {node['phase']} {message!r}; {summary}"
    )
    assert message.startswith(f"{aux}: "), (
        f"WPC-RECOVERY-007: node message {message!r}; {summary}"
    )
