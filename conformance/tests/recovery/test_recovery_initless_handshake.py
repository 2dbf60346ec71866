"""RecoveryInitlessHandshake: the supervisor-emissary handshake needs no controller.

We test these aspects on a dedicated initless controller instance: the
controller is stopped right after it created the pod, whose containers can
only start once the suite creates a ConfigMap it mounts; so the supervisor's
pre-main phase, the handshake and the user command all run while the
controller is down. After the pod completed the controller is started again,
and the node is `Succeeded` with an empty message, exit code "0" and the
output parameter, as without the downtime (WPC-RECOVERY-008).

Matrix: initless only.
"""

from __future__ import annotations

import dataclasses

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.workload.workflows import workflow_pods

ANSWER = "42"


@pytest.mark.conformance(
    short_name="RecoveryInitlessHandshake", clauses=["WPC-RECOVERY-008"]
)
def test_a_pod_whose_pre_main_phase_runs_during_downtime_completes_normally(
    dedicated_instance,
    workflows,
    manifest,
    kube_clients,
    namespace,
    test_labels,
    timeouts,
):
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    name = own.submit(manifest())
    until(
        lambda: workflow_pods(kube_clients, namespace, name) or NotYet("no pod yet"),
        timeout=timeouts.pod_created,
        interval=timeouts.poll_interval,
        describe=f"the controller to create the pod of {name}",
    )
    dedicated_instance.stop()
    kube_clients.core.create_namespaced_config_map(
        namespace,
        {
            "metadata": {"name": "wpc-gate", "labels": test_labels},
            "data": {"answer": ANSWER},
        },
    )
    until(
        lambda: (
            (
                phases := [
                    p.status.phase for p in workflow_pods(kube_clients, namespace, name)
                ]
            )
            == ["Succeeded"]
            or NotYet(phases)
        ),
        timeout=timeouts.workflow_completed,
        interval=timeouts.poll_interval,
        describe=f"the pod of {name} to succeed while the controller is down",
    )
    dedicated_instance.start()

    workflow = own.wait_completed(name)
    node = workflow["status"]["nodes"][name]
    outputs = node.get("outputs") or {}
    assert (node["phase"], node.get("message", "")) == ("Succeeded", ""), (
        f"WPC-RECOVERY-008: node {node}"
    )
    assert outputs.get("exitCode") == "0", f"WPC-RECOVERY-008: outputs {outputs}"
    assert [(p["name"], p.get("value")) for p in outputs.get("parameters") or []] == [
        ("answer", ANSWER)
    ], f"WPC-RECOVERY-008: outputs {outputs}"
    assert workflow["status"]["phase"] == "Succeeded", (
        f"WPC-RECOVERY-008: workflow {workflow['status']['phase']}"
    )
