"""InitlessSidecarReadyWait: user sidecars wait for READY like main (a SHOULD).

We test these aspects, on the pod of `manifests/initless-sidecar-ready-wait.yaml`:

- the user sidecar carries `ARGO_WAIT_FOR_READY=true`, as main does
  (WPC-INITLESS-006, pod-spec);
- when the sidecar's command starts, the status marker already reads `READY`
  (WPC-INITLESS-006, timing: the sidecar records the marker and main reports
  the record as an output parameter).

Kept apart from InitlessPodShape because the clause is a SHOULD (open question
OQ-1), whose failure must not fail MUST clauses. Matrix: init-less only.
"""

from __future__ import annotations

from typing import Any

import pytest


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    """Name -> value (or valueFrom); the first entry of a repeated name wins."""
    env: dict[str, Any] = {}
    for var in container.get("env") or []:
        env.setdefault(var["name"], var.get("value", var.get("valueFrom")))
    return env


@pytest.mark.conformance(
    short_name="InitlessSidecarReadyWait", clauses=["WPC-INITLESS-006"]
)
def test_user_sidecars_start_their_commands_only_after_ready(
    workflows, manifest, observations, kube_clients, namespace
):
    name = workflows.submit(manifest())
    workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    status = workflow["status"]
    assert status["phase"] == "Succeeded", f"workflow {name}: {status.get('message')!r}"
    listing = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    )
    assert len(listing.items) == 1, [p.metadata.name for p in listing.items]
    pod = kube_clients.api.sanitize_for_serialization(listing.items[0])
    ready_env = {
        c["name"]: env_of(c).get("ARGO_WAIT_FOR_READY")
        for c in pod["spec"]["containers"]
        if c["name"] in ("main", "recorder")
    }
    outputs = status["nodes"][name].get("outputs") or {}
    saw = {p["name"]: p.get("value") for p in outputs.get("parameters") or []}.get(
        "saw"
    )
    assert ready_env == {"main": "true", "recorder": "true"}, (
        f"WPC-INITLESS-006: ARGO_WAIT_FOR_READY of main and the sidecar: {ready_env}"
    )
    assert (saw or "").splitlines()[:1] == ["READY"], (
        f"WPC-INITLESS-006: the marker as the sidecar's command found it: {saw!r}"
    )
