"""InstanceWithoutId: a controller without instanceID serves only unlabelled Workflows.

We test these aspects, with a private controller instance (the suite's
`dedicated_instance`) in the test's layout whose `instanceID` is removed from
its configuration through the profile's `setConfig` (the instance keeps its own
namespace), and two copies of `manifests/instance-without-id.yaml` created in
the test's namespace: first one labelled for an instance ID no controller
serves, then one without the instance label:

- the unlabelled Workflow runs and succeeds; every recorded version of its pods
  lacks the `workflows.argoproj.io/controller-instanceid` label, and none of
  their containers (init containers included) has `ARGO_INSTANCE_ID`
  (WPC-INSTANCE-003);
- after it completed, the labelled one still has no status and no pods,
  observed throughout the `unprocessed_window` timeout (WPC-INSTANCE-003).

Such a controller processes every unlabelled Workflow of the cluster, so the
test holds the `unlabelled_workflows_lock` until the instance is uninstalled.

Matrix: legacy and init-less (the layout the instance runs in).
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness.inspecting import recording
from conformance.harness.instances.controllers import Controller

WORKFLOW_LABEL = "workflows.argoproj.io/workflow"


@pytest.fixture
def instance_without_id(
    unlabelled_workflows_lock: None, dedicated_instance: Controller
) -> Controller:
    """The dedicated instance with `instanceID` removed (the lock outlives it)."""
    dedicated_instance.set_config("instanceID", None)
    return dedicated_instance


def instance_env(pod: dict[str, Any]) -> dict[str, str | None]:
    """container -> its ARGO_INSTANCE_ID, for the containers that have one."""
    return {
        c["name"]: v.get("value")
        for c in [
            *(pod["spec"].get("initContainers") or []),
            *pod["spec"]["containers"],
        ]
        for v in c.get("env") or []
        if v["name"] == "ARGO_INSTANCE_ID"
    }


@pytest.mark.conformance(short_name="InstanceWithoutId", clauses=["WPC-INSTANCE-003"])
def test_controller_without_instance_id_serves_only_unlabelled_workflows(
    instance_without_id, workflows, scene, observations, test_labels
):
    wfs = dataclasses.replace(workflows, instance=instance_without_id.instance)
    body = scene.manifest()
    nobody = f"wpc-nobody-{uuid.uuid4().hex[:8]}"
    labelled = wfs.create(body, labels={**test_labels, contract.INSTANCE_LABEL: nobody})
    with recording.Recorder.pods(scene.clients, scene.namespace) as pods:
        name = wfs.create(body, labels=dict(test_labels))
        workflow = wfs.wait_completed(name)
    observations.record_workflow(workflow)
    assert workflow["status"]["phase"] == "Succeeded", (
        f"WPC-INSTANCE-003: unlabelled workflow {name}: "
        f"{workflow['status']['phase']} {workflow['status'].get('message')!r}"
    )

    own = [
        e.obj
        for e in pods.events()
        if (e.obj["metadata"].get("labels") or {}).get(WORKFLOW_LABEL) == name
    ]
    labels = {
        (
            p["metadata"]["name"],
            (p["metadata"].get("labels") or {}).get(contract.INSTANCE_LABEL),
        )
        for p in own
    }
    envs = {p["metadata"]["name"]: instance_env(p) for p in own}
    problems = [
        *(
            f"WPC-INSTANCE-003: pod {pod} carries {contract.INSTANCE_LABEL}={value!r}"
            for pod, value in sorted(labels)
            if value is not None
        ),
        *(
            f"WPC-INSTANCE-003: pod {pod} has ARGO_INSTANCE_ID in {env}"
            for pod, env in sorted(envs.items())
            if env
        ),
    ]
    assert own, f"no pod of {name} was recorded"
    assert not problems, "\n".join(problems)

    def untouched() -> bool | NotYet:
        state = wfs.touched(labelled)
        return True if state is None else NotYet(state)

    wfs.wait_unprocessed(
        untouched,
        describe=(
            f"WPC-INSTANCE-003: workflow {labelled}, labelled for {nobody}, "
            "to stay without status and pods"
        ),
    )
